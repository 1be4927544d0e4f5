import { z } from './zod.js';
import { listEnvs } from '@starpo/envs';

export const envInfoSchema = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  legend: z.string().nullable(),
  rolloutDefaults: z.object({ maxTurns: z.number(), maxActionsPerTurn: z.number(), maxActionsPerTraj: z.number() }),
  /** JSON Schema of the environment's config, with defaults. */
  configSchema: z.unknown(),
  defaults: z.record(z.string(), z.unknown()),
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
  }));
}
