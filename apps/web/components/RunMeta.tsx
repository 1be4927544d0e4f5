'use client';
import { zodResolver } from '@hookform/resolvers/zod';
import { updateRunSchema } from '@starpo/contracts';
import { z } from '@starpo/envs/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import type { ApiError } from '../lib/api';
import { errorFor, serverErrors } from '../lib/form-errors';
import { requestForm } from '../lib/form-schema';
import { splitTags } from '../lib/new-run-form';
import { useUpdateRun } from '../lib/queries';
import { Field } from './Field';
import { Gated } from './Gated';
import { Markdown } from './Markdown';

/** The edit form's fields (named apart from the New run form's), checked as the PATCH they make. */
const metaForm = requestForm(
  z.object({ 'meta-name': z.string(), 'meta-tags': z.string(), 'meta-notes': z.string() }),
  (v) => ({ name: v['meta-name'], tags: splitTags(v['meta-tags']), notes: v['meta-notes'] }),
  updateRunSchema,
  (path) => `meta-${path.split('.')[0]}`,
);

/** A run's name, tags and notes (Markdown): shown, and edited in place by those who may. */
export function RunMeta({ run, denied }: { run: { id: string; name: string; tags: string[]; notes: string }; denied: string | null }) {
  const [editing, setEditing] = useState(false);
  if (editing) return <MetaForm run={run} done={() => setEditing(false)} />;
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
          <button type="button" disabled={!!denied} data-testid="edit-meta" onClick={() => setEditing(true)}>
            Edit name, tags, notes
          </button>
        </Gated>
      </div>
      {run.notes ? <Markdown text={run.notes} testId="run-notes" /> : <p className="muted">No notes.</p>}
    </div>
  );
}

/** The edit form, filled with the run's values when opened; saving updates the run's cached details. */
function MetaForm({ run, done }: { run: { id: string; name: string; tags: string[]; notes: string }; done: () => void }) {
  const update = useUpdateRun();
  const [message, setMessage] = useState('');
  const { register, setError, handleSubmit, formState } = useForm({
    resolver: zodResolver(metaForm),
    defaultValues: { 'meta-name': run.name, 'meta-tags': run.tags.join(', '), 'meta-notes': run.notes },
  });
  const errors = formState.errors;
  const save = handleSubmit(async (body) => {
    setMessage('');
    try {
      await update.mutateAsync({ id: run.id, ...body });
      done();
    } catch (err) {
      const a = err as ApiError;
      serverErrors(a.details, setError, (p) => `meta-${p.split('.')[0]}`);
      setMessage(a.message);
    }
  });

  return (
    <form className="panel meta" onSubmit={save} data-testid="meta-form" noValidate>
      <Field label="Name" error={errorFor(errors, 'meta-name')}>
        <input {...register('meta-name')} />
      </Field>
      <Field label="Tags" error={errorFor(errors, 'meta-tags')} hint="comma-separated">
        <input {...register('meta-tags')} />
      </Field>
      <Field label="Notes" error={errorFor(errors, 'meta-notes')} hint="Markdown: **bold**, lists, links, `code`">
        <textarea {...register('meta-notes')} rows={6} />
      </Field>
      {message ? (
        <p className="error" role="alert">
          {message}
        </p>
      ) : null}
      <div className="toolbar">
        <button type="submit" className="primary" disabled={formState.isSubmitting}>
          Save
        </button>
        <button type="button" onClick={done}>
          Discard
        </button>
      </div>
    </form>
  );
}
