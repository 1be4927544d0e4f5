'use client';
import { lazy, Suspense, useState } from 'react';
import { Gated } from './Gated';
import { Markdown } from './Markdown';

// loaded on the first Edit: the run page's first screen does without the form library
const MetaForm = lazy(() => import('./MetaForm'));

/** A run's name, tags and notes (Markdown): shown, and edited in place by those who may. */
export function RunMeta({ run, denied }: { run: { id: string; name: string; tags: string[]; notes: string }; denied: string | null }) {
  const [editing, setEditing] = useState(false);
  if (editing)
    return (
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <MetaForm run={run} done={() => setEditing(false)} />
      </Suspense>
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
          <button type="button" disabled={!!denied} data-testid="edit-meta" onClick={() => setEditing(true)}>
            Edit name, tags, notes
          </button>
        </Gated>
      </div>
      {run.notes ? <Markdown text={run.notes} testId="run-notes" /> : <p className="muted">No notes.</p>}
    </div>
  );
}
