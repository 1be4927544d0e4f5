'use client';
import {
  buildRunConfig,
  PRESET_NAMES,
  PRESETS,
  SCRATCH_BASE,
  SCRATCH_HINT,
  shippedBase,
  ValidationError,
  type BaseModelInfo,
  type EnvInfo,
  type RunConfig,
  type RunConfigOverrides,
  type RunDetail,
} from '@starpo/contracts';
import { createEnv, type EnvSnapshot } from '@starpo/envs';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Board } from '../../../components/Board';
import { errorsByPath, Field } from '../../../components/Field';
import { splitTags } from '../../../components/RunMeta';
import { ApiError, useApi } from '../../../lib/api';
import { denied } from '../../../lib/roles';
import { cloneForm, readableError, setPath, withoutEnvSection } from '../../../lib/clone';
import { estimateRunSeconds } from '../../../lib/estimate';
import { humanError } from '../../../lib/form-errors';
import { getPath } from '../../../lib/paths';
import { useTitle } from '../../../lib/title';

/** The fields shown up front; everything else goes through the JSON overrides box. */
const FIELDS: { path: string; label: string; type: 'number' | 'text' }[] = [
  { path: 'training.steps', label: 'Training steps', type: 'number' },
  { path: 'rollout.envGroups', label: 'Environment groups per step', type: 'number' },
  { path: 'rollout.groupSize', label: 'Rollouts per group', type: 'number' },
  { path: 'rollout.maxTurns', label: 'Max turns', type: 'number' },
  { path: 'rollout.maxNewTokens', label: 'Max new tokens per reply', type: 'number' },
  { path: 'rollout.temperature', label: 'Sampling temperature', type: 'number' },
  { path: 'ppo.actorLr', label: 'Actor learning rate', type: 'number' },
  { path: 'filter.ratio', label: 'Variance filter: share of groups kept', type: 'number' },
  { path: 'ppo.clipRatioHigh', label: 'Clip ratio (high)', type: 'number' },
  { path: 'training.seed', label: 'Seed', type: 'number' },
];

function NewRunForm() {
  const { call, me } = useApi();
  const router = useRouter();
  const params = useSearchParams();
  const [preset, setPreset] = useState<string>('quick-cpu');
  const [env, setEnv] = useState('sokoban');
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [notes, setNotes] = useState('');
  const [base, setBase] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [extra, setExtra] = useState('{}');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState('');
  const [seed, setSeed] = useState(0);
  const [bases, setBases] = useState<BaseModelInfo[]>([]);
  const [envs, setEnvs] = useState<EnvInfo[]>([]);
  const from = params.get('from');
  useTitle(from ? 'Clone run' : 'New run');

  useEffect(() => {
    call<BaseModelInfo[]>('GET', '/api/base-models')
      .then(setBases)
      .catch(() => {});
    // the environments the API can train (until they arrive, the current one is the only choice)
    call<EnvInfo[]>('GET', '/api/envs')
      .then(setEnvs)
      .catch(() => {});
  }, [call]);
  useEffect(() => {
    if (!from) return;
    call<RunDetail>('GET', `/api/runs/${from}`)
      .then((r) => {
        const f = cloneForm(
          r,
          FIELDS.map((x) => x.path),
        );
        setName(`${r.name} (clone)`);
        setTags(r.tags.join(', '));
        setNotes(r.notes);
        setPreset(f.preset);
        setEnv(f.env);
        setBase(f.base);
        setValues(f.values);
        setExtra(JSON.stringify(f.overrides, null, 2));
      })
      .catch((e: Error) => setMessage(`cannot clone: ${e.message}`));
  }, [call, from]);

  /** The overrides the form describes, and the full config they make (or the field errors). */
  const built = useMemo(() => {
    let overrides: Record<string, unknown>;
    try {
      overrides = JSON.parse(extra || '{}') as Record<string, unknown>;
    } catch {
      return { errors: { overrides: 'not valid JSON' } as Record<string, string> };
    }
    setPath(overrides, 'env.name', env);
    if (base) setPath(overrides, 'model.base', base);
    for (const [path, v] of Object.entries(values)) if (v.trim() !== '') setPath(overrides, path, Number.isNaN(Number(v)) ? v : Number(v));
    try {
      return { overrides, config: buildRunConfig(preset || undefined, overrides as RunConfigOverrides) };
    } catch (e) {
      return { overrides, errors: e instanceof ValidationError ? errorsByPath(e.fields) : { overrides: (e as Error).message } };
    }
  }, [extra, env, base, values, preset]);
  const current = useRef(built);
  current.current = built;
  // the API's errors and message were about the previous values
  useEffect(() => {
    setErrors({});
    setMessage((m) => (m.startsWith('cannot clone') ? m : ''));
  }, [built]);
  /** The preset's values for this environment, for the hints: they do not depend on what is typed. */
  const defaults = useMemo(() => {
    try {
      return buildRunConfig(preset || undefined, { env: { name: env } } as RunConfigOverrides);
    } catch {
      return undefined;
    }
  }, [preset, env]);
  // a name of spaces only: the API refuses it, so the browser does too (empty means "generate one")
  const nameError = name !== '' && name.trim() === '' ? 'Must contain more than spaces; leave it empty for a generated name.' : null;
  const checked = { ...(built.errors ?? {}), ...(nameError ? { name: nameError } : {}) };
  const shown = Object.fromEntries(Object.entries({ ...checked, ...errors }).map(([p, m]) => [p, humanError(m)]));
  /** Errors of paths with no field of their own (set through the overrides): listed under the form. */
  const unfielded = Object.entries(shown).filter(([p]) => !FIELDED.has(p));
  const invalid = Object.keys(checked).length;
  const blocked =
    denied(me, 'launch') ??
    (invalid
      ? `Launch is off until ${invalid === 1 ? 'the field' : `${invalid} fields`} above ${invalid === 1 ? 'is' : 'are'} fixed`
      : null);

  const preview = useMemo((): { snapshot: EnvSnapshot } | { error: string } => {
    try {
      const e = createEnv(env, (getPath(built.overrides, 'env.config') as Record<string, unknown>) ?? {});
      e.reset(seed);
      return { snapshot: e.snapshot() };
    } catch (err) {
      const envErrors = Object.entries(built.errors ?? {}).filter(([p]) => p.startsWith('env.'));
      return {
        error: `No sample until the environment settings are valid: ${
          envErrors.length ? envErrors.map(([p, m]) => `${p}: ${m}`).join('; ') : readableError(err)
        }`,
      };
    }
  }, [env, seed, built.overrides]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    setMessage('');
    const sent = built;
    try {
      const run = await call<{ id: string }>('POST', '/api/runs', {
        ...(name ? { name } : {}),
        ...(preset ? { preset } : {}),
        config: built.overrides ?? {},
        tags: splitTags(tags),
        ...(notes ? { notes } : {}),
      });
      router.push(`/runs/${run.id}`);
    } catch (err) {
      if (current.current !== sent) return; // edited while the request was out: the answer is stale
      const a = err as ApiError;
      setErrors(errorsByPath(a.details?.map((d) => ({ ...d, path: d.path.replace(/^config\./, '') }))));
      setMessage(a.message);
    }
  }

  return (
    <form className="new-run" onSubmit={submit} data-testid="new-run-form" noValidate>
      <h1>{from ? 'Clone run' : 'New run'}</h1>
      <div className="row">
        <div className="panel grow">
          <Field label="Name" error={shown.name}>
            <input name="name" value={name} onChange={(e) => setName(e.target.value)} placeholder="generated when empty" />
          </Field>
          <Field
            label="Preset"
            error={shown.preset}
            hint={preset ? PRESETS[preset as keyof typeof PRESETS]?.description : 'no preset: the overrides below are the whole config'}
          >
            <select name="preset" value={preset} onChange={(e) => setPreset(e.target.value)}>
              <option value="">(none)</option>
              {PRESET_NAMES.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </Field>
          <Field label="Environment" error={shown['env.name']}>
            <select
              name="env"
              value={env}
              onChange={(e) => {
                setEnv(e.target.value);
                setExtra(withoutEnvSection); // the old environment's settings do not apply to the new one
              }}
            >
              {(envs.length ? envs.map((e) => e.name) : [env]).map((name) => (
                <option key={name}>{name}</option>
              ))}
            </select>
          </Field>
          <Field label="Base model" error={shown['model.base']} hint={baseHint(base || defaults?.model.base)}>
            <select name="base" value={base} onChange={(e) => setBase(e.target.value)}>
              {/* from the preset and environment only: another field's error must not change this label */}
              <option value="">
                preset default
                {preset && defaults
                  ? `: ${defaults.model.base}${defaults.model.base.startsWith('starpo-tiny/') ? ' (from scratch)' : ''}`
                  : ''}
              </option>
              {(bases.length ? bases : [{ name: SCRATCH_BASE, source: 'builtin' }]).map((b) => (
                <option key={b.name} value={b.name}>
                  {b.name}
                  {b.source === 'builtin' ? ' (from scratch)' : b.source === 'shipped' ? ' (pretrained, shipped)' : ' (pretrained)'}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Tags" hint="comma-separated">
            <input name="tags" value={tags} onChange={(e) => setTags(e.target.value)} />
          </Field>
          <Field label="Notes" error={shown.notes} hint="Markdown; editable later on the run page">
            <textarea name="notes" rows={3} value={notes} onChange={(e) => setNotes(e.target.value)} />
          </Field>
          <fieldset>
            <legend>Training</legend>
            {FIELDS.map((f) => (
              <Field key={f.path} label={f.label} error={shown[f.path]} hint={`default ${String(getPath(defaults, f.path) ?? '—')}`}>
                <input
                  name={f.path}
                  inputMode="decimal"
                  value={values[f.path] ?? ''}
                  placeholder={String(getPath(defaults, f.path) ?? '')}
                  onChange={(e) => setValues({ ...values, [f.path]: e.target.value })}
                />
              </Field>
            ))}
          </fieldset>
          <details>
            <summary>All other settings (JSON overrides)</summary>
            <Field label="JSON overrides" error={shown.overrides} hint='any RunConfig subset, e.g. {"earlyStopping":{"enabled":false}}'>
              <textarea name="overrides" rows={8} value={extra} onChange={(e) => setExtra(e.target.value)} spellCheck={false} />
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
          {message ? (
            <p className="error" data-testid="submit-error">
              {message}
            </p>
          ) : null}
          {built.config && !invalid ? <DurationEstimate config={built.config} /> : null}
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
          {'error' in preview ? (
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

/** Paths the form has a field for; errors of any other path come from the overrides. */
const FIELDED = new Set(['name', 'preset', 'env.name', 'model.base', 'notes', 'overrides', ...FIELDS.map((f) => f.path)]);

/** How long the run may take, before Launch: a 100,000-step run says days, not nothing. */
function DurationEstimate({ config }: { config: RunConfig }) {
  const s = estimateRunSeconds(config);
  const long = s > 24 * 3600;
  return (
    <p className={long ? 'warn-text' : 'muted'} data-testid="duration-estimate">
      Estimated duration: about {roughDuration(s)} on two CPU cores ({config.training.steps} steps)
      {long ? '. Check the step count before launching.' : '.'}
    </p>
  );
}

function roughDuration(s: number): string {
  if (s < 90) return `${Math.max(1, Math.round(s / 60))} min`;
  if (s < 2 * 3600) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} hours`;
  return `${Math.round(s / 86400)} days`;
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
