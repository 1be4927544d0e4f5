import type { ReactNode } from 'react';

/** A labelled form field with its error (from the shared zod schema or the API's 400 details) beside it. */
export function Field({ label, error, children, hint }: { label: string; error?: string; hint?: string; children: ReactNode }) {
  return (
    <label className={`field${error ? ' invalid' : ''}`}>
      <span>{label}</span>
      {children}
      {hint && !error ? <small className="muted">{hint}</small> : null}
      {error ? (
        <small className="error" role="alert">
          {error}
        </small>
      ) : null}
    </label>
  );
}

/** `[{ path, message }]` → `{ path: message }` (first message per path). */
export function errorsByPath(details: { path: string; message: string }[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of details ?? []) out[d.path] ??= d.message;
  return out;
}
