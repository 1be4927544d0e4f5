'use client';
import { zodResolver } from '@hookform/resolvers/zod';
import { buildRunConfig, PRESET_NAMES, PRESETS, SCRATCH_BASE, SCRATCH_HINT, shippedBase, type RunConfigOverrides } from '@starpo/contracts';
import { createEnv, type EnvSnapshot } from '@starpo/envs';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Board } from '../../../components/Board';
import { DurationEstimate } from '../../../components/DurationEstimate';
import { Field } from '../../../components/Field';
import type { ApiError } from '../../../lib/api';
import { readableError, withoutEnvSection } from '../../../lib/clone';
import { flatErrors, humanError, serverErrors } from '../../../lib/form-errors';
import {
  cloneValues,
  EMPTY_NEW_RUN,
  FIELDED,
  FIELDS,
  jsonBase,
  newRunSchemaFor,
  readNewRun,
  withJsonBase,
  withRegisteredEnv,
  type NewRunValues,
} from '../../../lib/new-run-form';
import { getPath } from '../../../lib/paths';
import { useBaseModels, useCreateRun, useEnvs, useMe, useRun } from '../../../lib/queries';
import { denied } from '../../../lib/roles';
import { useTitle } from '../../../lib/title';

function NewRunForm() {
  const me = useMe();
  const router = useRouter();
  const params = useSearchParams();
  const from = params.get('from');
  useTitle(from ? 'Clone run' : 'New run');
  const loadedBases = useBaseModels().data;
  const bases = loadedBases?.length ? loadedBases : [{ name: SCRATCH_BASE, source: 'builtin' }];
  // the environments the API can train (until they arrive, the current one is the only choice): the
  // built-in ones and the team's registered ones a worker has described
  const loadedEnvs = useEnvs().data;
  const envs = useMemo(() => (loadedEnvs ?? []).filter((e) => e.source === 'builtin' || e.registration?.status === 'ready'), [loadedEnvs]);
  const registered = useMemo(
    () => Object.fromEntries(envs.flatMap((e) => (e.registration ? [[e.name, e.registration.endpoint]] : []))),
    [envs],
  );
  const schema = useMemo(() => newRunSchemaFor(registered), [registered]);
  const source = useRun(from);
  const createRun = useCreateRun();
  const [message, setMessage] = useState('');
  const [seed, setSeed] = useState(0);
  const { register, watch, reset, setValue, getValues, setError, trigger, handleSubmit, formState } = useForm<NewRunValues>({
    resolver: zodResolver(schema),
    defaultValues: EMPTY_NEW_RUN,
  });
  const values = watch();
  /** Counts edits: an API answer to values since edited is stale. */
  const edits = useRef(0);

  // The whole form is checked on every change, not only the field typed in: a preset, an environment or
  // the overrides change which settings are valid. That also clears the API's errors about the old values.
  useEffect(() => {
    const sub = watch(() => {
      edits.current += 1;
      setMessage('');
      void trigger();
    });
    return () => sub.unsubscribe();
  }, [watch, trigger]);
  // a clone starts from its source's values, once they are in
  const cloned = useRef<string | null>(null);
  useEffect(() => {
    if (!from || !source.data || cloned.current === from) return;
    cloned.current = from;
    reset(cloneValues(source.data));
    void trigger();
  }, [from, source.data, reset, trigger]);

  /** The overrides the form describes, and the full config they make (or the field errors). */
  const built = useMemo(() => readNewRun(values, registered), [values, registered]);
  // the registered environments arrived: the chosen one's config is checked again with its address
  useEffect(() => void trigger(), [schema, trigger]);
  /** The preset's values for this environment, for the hints: they do not depend on what is typed. */
  const defaults = useMemo(() => {
    try {
      return buildRunConfig(values.preset || undefined, withRegisteredEnv({ env: { name: values.env } } as RunConfigOverrides, registered));
    } catch {
      return undefined;
    }
  }, [values.preset, values.env, registered]);
  const errors = flatErrors(formState.errors);
  const shown = Object.fromEntries(Object.entries(errors).map(([p, e]) => [p, humanError(e.message)]));
  /** Errors of paths with no field of their own (set through the overrides): listed under the form. */
  const unfielded = Object.entries(shown).filter(([p]) => !FIELDED.has(p));
  const invalid = Object.values(errors).filter((e) => e.type !== 'server').length;
  const blocked =
    denied(me, 'launch') ??
    (invalid
      ? `Launch is off until ${invalid === 1 ? 'the field' : `${invalid} fields`} above ${invalid === 1 ? 'is' : 'are'} fixed`
      : null);
  const shownMessage = message || (source.error ? `cannot clone: ${source.error.message}` : '');
  // a base named in the overrides wins: the Base model list shows it, and its error goes with the overrides
  const baseInJson = jsonBase(values.overrides);
  const overridesError =
    shown.overrides ?? (baseInJson !== undefined && shown['model.base'] ? `model.base: ${shown['model.base']}` : undefined);

  const preview = useMemo((): { snapshot: EnvSnapshot } | { error: string } | { remote: true } => {
    // a registered environment draws its own states, and only workers reach it
    if (registered[values.env]) return { remote: true };
    try {
      const e = createEnv(values.env, (getPath(built.overrides, 'env.config') as Record<string, unknown>) ?? {});
      e.reset(seed);
      return { snapshot: e.snapshot() };
    } catch (err) {
      const envErrors = Object.entries(built.errors).filter(([p]) => p.startsWith('env.'));
      return {
        error: `No sample until the environment settings are valid: ${
          envErrors.length ? envErrors.map(([p, m]) => `${p}: ${m}`).join('; ') : readableError(err)
        }`,
      };
    }
  }, [values.env, seed, built, registered]);

  const submit = handleSubmit(async (v) => {
    setMessage('');
    const sent = edits.current;
    try {
      const run = await createRun.mutateAsync(readNewRun(v, registered).body!);
      router.push(`/runs/${run.id}`);
    } catch (err) {
      if (edits.current !== sent) return; // edited while the request was out: the answer is stale
      const a = err as ApiError;
      serverErrors(a.details, setError, (p) => p.replace(/^config\./, ''));
      // each detail is shown at its field or listed under the form: the summary would say it twice
      if (!a.details?.length) setMessage(a.message);
    }
  });

  return (
    <form className="new-run" onSubmit={submit} data-testid="new-run-form" noValidate>
      <h1>{from ? 'Clone run' : 'New run'}</h1>
      <div className="row">
        <div className="panel grow">
          <Field label="Name" error={shown.name}>
            <input {...register('name')} placeholder="generated when empty" />
          </Field>
          <Field
            label="Preset"
            error={shown.preset}
            hint={
              values.preset
                ? PRESETS[values.preset as keyof typeof PRESETS]?.description
                : 'no preset: the overrides below are the whole config'
            }
          >
            {/* defaultValue: the server's HTML shows the defaults too, before the form hydrates */}
            <select {...register('preset')} defaultValue={EMPTY_NEW_RUN.preset}>
              <option value="">(none)</option>
              {PRESET_NAMES.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </Field>
          <Field label="Environment" error={shown['env.name']}>
            <select
              {...register('env', {
                // the old environment's settings do not apply to the new one
                onChange: () => setValue('overrides', withoutEnvSection(getValues('overrides'))),
              })}
              defaultValue={EMPTY_NEW_RUN.env}
            >
              {(envs.length ? envs.map((e) => e.name) : [values.env]).map((name) => (
                <option key={name}>{name}</option>
              ))}
            </select>
          </Field>
          <Field
            label="Base model"
            error={baseInJson === undefined ? shown['model.base'] : undefined}
            hint={
              baseInJson === undefined
                ? baseHint(values.base || defaults?.model.base)
                : 'Set by model.base in the JSON overrides, which win over this list; a choice here is written there.'
            }
          >
            {/* controlled: a clone's base may arrive before the list of bases that has it */}
            <select
              {...register('base', {
                onChange: (e: { target: { value: string } }) => {
                  if (jsonBase(getValues('overrides')) === undefined) return;
                  setValue('overrides', withJsonBase(getValues('overrides'), e.target.value));
                  setValue('base', '');
                },
              })}
              value={baseInJson ?? values.base}
            >
              {/* from the preset and environment only: another field's error must not change this label */}
              <option value="">
                preset default
                {values.preset && defaults
                  ? `: ${defaults.model.base}${defaults.model.base.startsWith('starpo-tiny/') ? ' (from scratch)' : ''}`
                  : ''}
              </option>
              {bases.map((b) => (
                <option key={b.name} value={b.name}>
                  {b.name}
                  {b.source === 'builtin' ? ' (from scratch)' : b.source === 'shipped' ? ' (pretrained, shipped)' : ' (pretrained)'}
                </option>
              ))}
              {baseInJson && !bases.some((b) => b.name === baseInJson) ? (
                <option value={baseInJson}>{baseInJson} (from the JSON overrides)</option>
              ) : null}
            </select>
          </Field>
          <Field label="Tags" error={shown.tags} hint="comma-separated">
            <input {...register('tags')} />
          </Field>
          <Field label="Notes" error={shown.notes} hint="Markdown; editable later on the run page">
            <textarea {...register('notes')} rows={3} />
          </Field>
          <fieldset>
            <legend>Training</legend>
            {FIELDS.map((f) => (
              <Field key={f.path} label={f.label} error={shown[f.path]} hint={`default ${String(getPath(defaults, f.path) ?? '—')}`}>
                <input {...register(f.path)} inputMode="decimal" placeholder={String(getPath(defaults, f.path) ?? '')} />
              </Field>
            ))}
          </fieldset>
          {/* kept open while the overrides have an error, so it is never hidden */}
          <details open={overridesError ? true : undefined}>
            <summary>All other settings (JSON overrides)</summary>
            <Field label="JSON overrides" error={overridesError} hint='any RunConfig subset, e.g. {"earlyStopping":{"enabled":false}}'>
              <textarea {...register('overrides')} defaultValue={EMPTY_NEW_RUN.overrides} rows={8} spellCheck={false} />
            </Field>
            {built.config ? <pre className="config">{JSON.stringify(built.config, null, 2)}</pre> : null}
          </details>
          {unfielded.length ? (
            // the alert role on a wrapper: on the <ul> itself it would hide the list from screen readers
            <div role="alert" data-testid="form-errors">
              <ul className="error">
                {unfielded.map(([p, m]) => (
                  <li key={p}>
                    <code>{p}</code>: {m}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {shownMessage ? (
            <p className="error" data-testid="submit-error">
              {shownMessage}
            </p>
          ) : null}
          {built.config && !invalid ? <DurationEstimate config={built.config} preset={values.preset} /> : null}
          <div className="toolbar">
            <button type="submit" className="primary" disabled={!!blocked} aria-describedby={blocked ? 'launch-blocked' : undefined}>
              Launch
            </button>
            {blocked ? (
              <span className="muted" id="launch-blocked" data-testid="launch-blocked">
                {blocked}
              </span>
            ) : null}
          </div>
        </div>
        <div className="panel">
          <h2>Sample initial state</h2>
          <Field label="Sample seed" hint="shows the initial state of this seed; the run's seed is above">
            <input type="number" name="sample-seed" value={seed} onChange={(e) => setSeed(Number(e.target.value) || 0)} />
          </Field>
          {'remote' in preview ? (
            <p className="muted" data-testid="preview-remote">
              {values.env} is a registered environment: only workers reach it, so its states appear in the run&apos;s replays.
            </p>
          ) : 'error' in preview ? (
            <p className="error" data-testid="preview-error">
              {preview.error}
            </p>
          ) : (
            <Board snapshot={preview.snapshot} testId="preview-board" />
          )}
        </div>
      </div>
    </form>
  );
}

/** One line on what the chosen base means for the run. */
function baseHint(base: string | undefined): string {
  if (!base) return 'a pretrained base model, or a starpo-tiny size from scratch';
  if (base.startsWith('starpo-tiny/')) return SCRATCH_HINT;
  const shipped = shippedBase(base);
  return shipped ? `${shipped.description}: writes well-formed replies and plays from step 1.` : 'a base model pretrained by your team';
}

/**
 * No Suspense boundary: every page renders per request (the root layout is dynamic), and a boundary
 * around a form this large would be streamed as a separate chunk that hydration can overtake.
 */
export default function NewRunPage() {
  return <NewRunForm />;
}
