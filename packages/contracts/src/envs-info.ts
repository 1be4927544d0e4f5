import { z } from './zod.js';
import { listEnvs } from '@starpo/envs';

export interface EnvInfo {
  name: string;
  title: string;
  description: string;
  legend: string | null;
  rolloutDefaults: { maxTurns: number; maxActionsPerTurn: number; maxActionsPerTraj: number };
  /** JSON Schema of the environment's config, with defaults. */
  configSchema: unknown;
  defaults: Record<string, unknown>;
}

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
