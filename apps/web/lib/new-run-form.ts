import {
  buildRunConfig,
  createRunSchema,
  registeredEnvName,
  ValidationError,
  withEnvEndpoint,
  type CreateRunRequest,
  type EnvEndpoint,
  type RunConfig,
  type RunConfigOverrides,
} from '@starpo/contracts';
import { z } from '@starpo/envs/zod';
import type { FieldPath } from 'react-hook-form';
import { cloneForm, setPath } from './clone';
import { getPath } from './paths';

const text = z.string();
/** The New run form as typed: every value a string; the training fields sit at their config paths. */
const newRunFields = z.object({
  name: text,
  preset: text,
  env: text,
  base: text,
  tags: text,
  notes: text,
  /** The JSON overrides box. */
  overrides: text,
  training: z.object({ steps: text, seed: text }),
  rollout: z.object({ envGroups: text, groupSize: text, maxTurns: text, maxNewTokens: text, temperature: text }),
  ppo: z.object({ actorLr: text, clipRatioHigh: text }),
  filter: z.object({ ratio: text }),
});
export type NewRunValues = z.infer<typeof newRunFields>;

/** The fields shown up front; everything else goes through the JSON overrides box. */
export const FIELDS: { path: FieldPath<NewRunValues>; label: string }[] = [
  { path: 'training.steps', label: 'Training steps' },
  { path: 'rollout.envGroups', label: 'Environment groups per step' },
  { path: 'rollout.groupSize', label: 'Rollouts per group' },
  { path: 'rollout.maxTurns', label: 'Max turns' },
  { path: 'rollout.maxNewTokens', label: 'Max new tokens per reply' },
  { path: 'rollout.temperature', label: 'Sampling temperature' },
  { path: 'ppo.actorLr', label: 'Actor learning rate' },
  { path: 'filter.ratio', label: 'Variance filter: share of groups kept' },
  { path: 'ppo.clipRatioHigh', label: 'Clip ratio (high)' },
  { path: 'training.seed', label: 'Seed' },
];

/** Paths the form has a field for; errors of any other path come from the overrides. */
export const FIELDED = new Set<string>([
  'name',
  'preset',
  'env.name',
  'model.base',
  'tags',
  'notes',
  'overrides',
  ...FIELDS.map((f) => f.path),
]);

export const EMPTY_NEW_RUN: NewRunValues = {
  name: '',
  preset: 'quick-cpu',
  env: 'sokoban',
  base: '',
  tags: '',
  notes: '',
  overrides: '{}',
  training: { steps: '', seed: '' },
  rollout: { envGroups: '', groupSize: '', maxTurns: '', maxNewTokens: '', temperature: '' },
  ppo: { actorLr: '', clipRatioHigh: '' },
  filter: { ratio: '' },
};

export const splitTags = (s: string) =>
  s
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** The form's values for a clone of `source`: its preset, environment and fields, only the differences as overrides. */
export function cloneValues(source: {
  name: string;
  tags: string[];
  notes: string;
  preset: string | null;
  config: Record<string, unknown>;
}): NewRunValues {
  const f = cloneForm(
    source,
    FIELDS.map((x) => x.path),
  );
  const values = structuredClone(EMPTY_NEW_RUN);
  for (const [path, v] of Object.entries(f.values)) setPath(values as unknown as Record<string, unknown>, path, v);
  return {
    ...values,
    name: `${source.name} (clone)`,
    tags: source.tags.join(', '),
    notes: source.notes,
    preset: f.preset,
    env: f.env,
    base: f.base,
    overrides: JSON.stringify(f.overrides, null, 2),
  };
}

/** The base model the overrides JSON names (`model.base`), if it parses and names one. */
export function jsonBase(json: string): string | undefined {
  try {
    const base = getPath(JSON.parse(json || '{}'), 'model.base');
    return typeof base === 'string' ? base : undefined;
  } catch {
    return undefined;
  }
}

/** The overrides JSON with `model.base` set to `base`, or without it when `base` is empty (the preset's). */
export function withJsonBase(json: string, base: string): string {
  const o = JSON.parse(json || '{}') as { model?: Record<string, unknown> };
  if (base) setPath(o, 'model.base', base);
  else if (o.model) {
    delete o.model.base;
    if (!Object.keys(o.model).length) delete o.model;
  }
  return JSON.stringify(o, null, 2);
}

/** What the form describes: the overrides, the full config they make, the request to send, or the errors by path. */
export interface NewRunRequest {
  overrides?: Record<string, unknown>;
  config?: RunConfig;
  body?: Partial<CreateRunRequest>;
  errors: Record<string, string>;
}

const NAME_OF_SPACES = 'Must contain more than spaces; leave it empty for a generated name.';

/**
 * Reads the form: the overrides JSON with the environment, base and fields set into it, the config
 * the preset and overrides make (validated by runConfigSchema through buildRunConfig) and the request's
 * name, tags and notes (validated by createRunSchema, the API's own schema).
 */
/** The team's ready registered environments by name, with where each is served. */
export type RegisteredEndpoints = Readonly<Record<string, EnvEndpoint>>;

/**
 * The overrides as the API will launch them: a registered environment's address in `env.remote`
 * (the API writes it in from its own record; the form only checks the config with it).
 */
export function withRegisteredEnv(overrides: RunConfigOverrides, registered: RegisteredEndpoints): RunConfigOverrides {
  const name = registeredEnvName(overrides);
  const endpoint = name ? registered[name] : undefined;
  return endpoint ? withEnvEndpoint(overrides, endpoint) : overrides;
}

export function readNewRun(v: NewRunValues, registered: RegisteredEndpoints = {}): NewRunRequest {
  const errors: Record<string, string> = {};
  // a name of spaces only: the API refuses it, so the browser does too (empty means "generate one")
  if (v.name !== '' && v.name.trim() === '') errors.name = NAME_OF_SPACES;
  const body: Partial<CreateRunRequest> = {
    ...(v.name.trim() ? { name: v.name } : {}),
    ...(v.preset ? { preset: v.preset } : {}),
    tags: splitTags(v.tags),
    ...(v.notes ? { notes: v.notes } : {}),
  };
  const meta = createRunSchema.safeParse({ ...body, config: {} });
  if (!meta.success)
    for (const issue of meta.error.issues) {
      const path = String(issue.path[0] ?? 'overrides'); // a tag's issue (tags.3) is the Tags field's
      errors[path] ??= issue.message;
    }
  let overrides: Record<string, unknown>;
  try {
    overrides = JSON.parse(v.overrides || '{}') as Record<string, unknown>;
  } catch {
    return { errors: { ...errors, overrides: 'not valid JSON' } };
  }
  setPath(overrides, 'env.name', v.env);
  // a base in the overrides wins: the Base model field shows it and edits it there (jsonBase)
  if (v.base && getPath(overrides, 'model.base') === undefined) setPath(overrides, 'model.base', v.base);
  for (const { path } of FIELDS) {
    const raw = String(getPath(v, path) ?? '');
    if (raw.trim() !== '') setPath(overrides, path, Number.isNaN(Number(raw)) ? raw : Number(raw));
  }
  let config: RunConfig | undefined;
  try {
    config = buildRunConfig(v.preset || undefined, withRegisteredEnv(overrides as RunConfigOverrides, registered));
  } catch (e) {
    if (e instanceof ValidationError) for (const f of e.fields) errors[f.path] ??= f.message;
    else errors.overrides ??= (e as Error).message;
  }
  return { overrides, config, body: { ...body, config: overrides }, errors };
}

/**
 * The form's schema for react-hook-form's zodResolver: the values as typed, and every error of
 * readNewRun at its path (a training field's at the field, an overrides setting's at its own path).
 */
export const newRunSchemaFor = (registered: RegisteredEndpoints) =>
  newRunFields.superRefine((v, ctx) => {
    for (const [path, message] of Object.entries(readNewRun(v, registered).errors))
      ctx.addIssue({ code: 'custom', path: (path || 'overrides').split('.'), message });
  });
