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

/** The edit form's fields (named apart from the New run form's), checked as the PATCH they make. */
const metaForm = requestForm(
  z.object({ 'meta-name': z.string(), 'meta-tags': z.string(), 'meta-notes': z.string() }),
  (v) => ({ name: v['meta-name'], tags: splitTags(v['meta-tags']), notes: v['meta-notes'] }),
  updateRunSchema,
  (path) => `meta-${path.split('.')[0]}`,
);

/** The edit form, filled with the run's values when opened; saving updates the run's cached details. */
export default function MetaForm({ run, done }: { run: { id: string; name: string; tags: string[]; notes: string }; done: () => void }) {
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
