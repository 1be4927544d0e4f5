import { z } from './zod.js';
import { envDescriptionSchema, envNameSchema, listEnvs } from '@starpo/envs';
import { merge, type RunConfigOverrides } from './presets.js';
import { checkRemoteEndpoint, REMOTE_ROLLOUT_LIMITS, remoteEndpointShape } from './run-config.js';

/** pending: no worker has described it yet; ready: described; failed: the description failed (`error` says why). */
export const ENV_REGISTRATION_STATUSES = ['pending', 'ready', 'failed'] as const;
export type EnvRegistrationStatus = (typeof ENV_REGISTRATION_STATUSES)[number];

/** `POST /api/envs`: a name for the team and where the environment is served (a URL, or a command in a folder). */
export const registerEnvSchema = z
  .object({ name: envNameSchema.describe('The name runs use (env.name), e.g. frozenlake-py'), ...remoteEndpointShape })
  .strict()
  .superRefine(checkRemoteEndpoint);
export type RegisterEnvRequest = z.infer<typeof registerEnvSchema>;

/** Where a registered environment is served: what a run's `env.remote` gets at launch. */
export const envEndpointSchema = z.object({
  url: z.string().optional(),
  command: z.array(z.string()).optional(),
  cwd: z.string().optional(),
});
export type EnvEndpoint = z.infer<typeof envEndpointSchema>;

export const envInfoSchema = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  legend: z.string().nullable(),
  rolloutDefaults: z.object({ maxTurns: z.number(), maxActionsPerTurn: z.number(), maxActionsPerTraj: z.number() }),
  /** JSON Schema of the environment's config, with defaults. */
  configSchema: z.unknown(),
  defaults: z.record(z.string(), z.unknown()),
  source: z.enum(['builtin', 'registered']),
  /** A registered environment's address and the state of its description (fetched by a worker, never by the API). */
  registration: z
    .object({
      status: z.enum(ENV_REGISTRATION_STATUSES),
      error: z.string().nullable(),
      endpoint: envEndpointSchema,
      createdAt: z.string(),
    })
    .optional(),
});
export type EnvInfo = z.infer<typeof envInfoSchema>;

/** Environments and their config schemas, as `GET /api/envs` serves them. */
export function describeEnvs(): EnvInfo[] {
  return listEnvs().map((d) => ({
    name: d.name,
    title: d.title,
    description: d.description,
    legend: d.legend,
    rolloutDefaults: d.rolloutDefaults,
    configSchema: z.toJSONSchema(d.configSchema, { io: 'input' }),
    defaults: d.configSchema.parse({}),
    source: 'builtin',
  }));
}

export const isBuiltinEnv = (name: string): boolean => listEnvs().some((d) => d.name === name);

/** A team's registered environment as stored (packages/db). */
export interface EnvRegistrationRow {
  name: string;
  url: string | null;
  command: unknown;
  cwd: string | null;
  status: string;
  error: string | null;
  description: unknown;
  createdAt: Date;
}

/** A registration's address, as a run's `env.remote` names it. */
export function registrationEndpoint(row: Pick<EnvRegistrationRow, 'url' | 'command' | 'cwd'>): EnvEndpoint {
  return row.url ? { url: row.url } : { command: row.command as string[], cwd: row.cwd ?? undefined };
}

/** A registered environment in `GET /api/envs`: its description once a worker has fetched it, else its name alone. */
export function registeredEnvInfo(row: EnvRegistrationRow): EnvInfo {
  const d = envDescriptionSchema.safeParse(row.description);
  const described = row.status === 'ready' && d.success ? d.data : null;
  return {
    name: row.name,
    title: described?.title ?? row.name,
    description: described?.description ?? '',
    legend: described?.legend ?? null,
    rolloutDefaults: described?.limits ?? REMOTE_ROLLOUT_LIMITS,
    configSchema: described?.configSchema ?? null,
    defaults: {},
    source: 'registered',
    registration: {
      status: row.status as EnvRegistrationStatus,
      error: row.error,
      endpoint: registrationEndpoint(row),
      createdAt: row.createdAt.toISOString(),
    },
  };
}

/**
 * The registered environment a run's overrides name: `env.name` not a built-in, and no address of
 * its own in `env.remote` (one given there wins, with the run's own settings). Else null.
 */
export function registeredEnvName(overrides: RunConfigOverrides): string | null {
  const env = overrides.env;
  if (typeof env?.name !== 'string' || isBuiltinEnv(env.name)) return null;
  return env.remote?.url !== undefined || env.remote?.command !== undefined ? null : env.name;
}

/** The overrides with `env.remote` pointed at a registered environment's address (its other settings kept). */
export const withEnvEndpoint = (overrides: RunConfigOverrides, endpoint: EnvEndpoint): RunConfigOverrides =>
  merge(overrides, { env: { remote: endpoint } });
