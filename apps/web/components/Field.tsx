import { cloneElement, useId, type ReactElement } from 'react';

type Control = ReactElement<{ id?: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }>;

/**
 * A labelled form field with its error (from the shared zod schema or the API's 400 details) beside it.
 * The label names the control by `htmlFor` and the hint or error describes it, so a control's
 * accessible name is its label alone (not the options of a select, nor the hint).
 */
export function Field({ label, error, children, hint }: { label: string; error?: string; hint?: string; children: Control }) {
  const id = useId();
  const note = error ?? hint;
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, 'aria-describedby': note ? `${id}-note` : undefined, 'aria-invalid': error ? true : undefined })}
      {error ? (
        <small className="error" role="alert" id={`${id}-note`}>
          {error}
        </small>
      ) : hint ? (
        <small className="muted" id={`${id}-note`}>
          {hint}
        </small>
      ) : null}
    </div>
  );
}
