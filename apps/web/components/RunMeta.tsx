'use client';
import { useState, type FormEvent } from 'react';
import { ApiError, useApi } from '../lib/api';
import { errorsByPath, Field } from './Field';
import { Gated } from './Gated';
import { Markdown } from './Markdown';

export const splitTags = (s: string) =>
  s
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** A run's name, tags and notes (Markdown): shown, and edited in place by those who may. */
export function RunMeta({
  run,
  denied,
  onSaved,
}: {
  run: { id: string; name: string; tags: string[]; notes: string };
  denied: string | null;
  onSaved: () => void;
}) {
  const { call } = useApi();
  const [form, setForm] = useState<{ name: string; tags: string; notes: string } | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!form) return;
    setBusy(true);
    setErrors({});
    setMessage('');
    try {
      await call('PATCH', `/api/runs/${run.id}`, { name: form.name, tags: splitTags(form.tags), notes: form.notes });
      setForm(null);
      onSaved();
    } catch (err) {
      const a = err as ApiError;
      setErrors(errorsByPath(a.details?.map((d) => ({ ...d, path: d.path.replace(/^tags\.\d+$/, 'tags') }))));
      setMessage(a.message);
    } finally {
      setBusy(false);
    }
  }

  if (form)
    return (
      <form className="panel meta" onSubmit={save} data-testid="meta-form">
        <Field label="Name" error={errors.name}>
          <input name="meta-name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </Field>
        <Field label="Tags" error={errors.tags} hint="comma-separated">
          <input name="meta-tags" value={form.tags} onChange={(e) => setForm({ ...form, tags: e.target.value })} />
        </Field>
        <Field label="Notes" error={errors.notes} hint="Markdown: **bold**, lists, links, `code`">
          <textarea name="meta-notes" rows={6} value={form.notes} onChange={(e) => setForm({ ...form, notes: e.target.value })} />
        </Field>
        {message ? (
          <p className="error" role="alert">
            {message}
          </p>
        ) : null}
        <div className="toolbar">
          <button type="submit" className="primary" disabled={busy}>
            Save
          </button>
          <button type="button" onClick={() => (setForm(null), setErrors({}), setMessage(''))}>
            Discard
          </button>
        </div>
      </form>
    );
  return (
    <div className="panel meta" data-testid="run-meta">
      <div className="toolbar">
        <span data-testid="run-tags">
          {run.tags.length ? (
            run.tags.map((t) => (
              <a key={t} className="tag" href={`/?tag=${encodeURIComponent(t)}`}>
                {t}
              </a>
            ))
          ) : (
            <span className="muted">no tags</span>
          )}
        </span>
        <span className="spacer" />
        <Gated reason={denied}>
          <button
            type="button"
            disabled={!!denied}
            data-testid="edit-meta"
            onClick={() => setForm({ name: run.name, tags: run.tags.join(', '), notes: run.notes })}
          >
            Edit name, tags, notes
          </button>
        </Gated>
      </div>
      {run.notes ? <Markdown text={run.notes} testId="run-notes" /> : <p className="muted">No notes.</p>}
    </div>
  );
}
