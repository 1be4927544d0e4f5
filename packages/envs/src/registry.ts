import type { z } from 'zod';
import type { Env, EnvSnapshot, ObservationParse } from './types.js';

/** Everything the rest of the system needs to know about one environment. */
export interface EnvDefinition<S extends z.ZodObject = z.ZodObject, Snap extends EnvSnapshot = EnvSnapshot> {
  /** The snapshots' `env`, or any name for a protocol environment (whose snapshots are `text`). */
  name: string;
  title: string;
  description: string;
  /** Symbol legend for the prompt, or null when the observation is plain text. */
  legend: string | null;
  /** Zod schema of the environment's config, with defaults. */
  configSchema: S;
  /** Rollout limits RAGEN uses for this environment. */
  rolloutDefaults: { maxTurns: number; maxActionsPerTurn: number; maxActionsPerTraj: number };
  create(config?: Partial<z.infer<S>>): Env<Snap>;
  /** Text observation drawn from a stored snapshot. */
  renderSnapshot(snapshot: Snap): string;
  /** The snapshot read back from a text observation (runs trained elsewhere send only the text). */
  parseObservation(text: string): ObservationParse<Snap>;
  /** Shape of a stored snapshot that can be drawn and diagnosed. */
  snapshotSchema: z.ZodType<Snap>;
  /**
   * Why a rollout that resets `resets` environments of distinct seeds at once would cost more
   * than ROLLOUT_GENERATION_LIMIT allows, naming the setting to lower; null when affordable.
   * Absent for environments whose reset is cheap.
   */
  rolloutGenerationIssue?(config: z.infer<S>, resets: number): { path: string[]; message: string } | null;
}

const registry = new Map<string, EnvDefinition>();

export function registerEnv<S extends z.ZodObject, Snap extends EnvSnapshot>(def: EnvDefinition<S, Snap>): void {
  if (registry.has(def.name)) throw new Error(`environment "${def.name}" is already registered`);
  registry.set(def.name, def as unknown as EnvDefinition);
}

export function listEnvs(): EnvDefinition[] {
  return [...registry.values()];
}

export function getEnvDefinition(name: string): EnvDefinition {
  const def = registry.get(name);
  if (!def) throw new Error(`unknown environment "${name}" (known: ${[...registry.keys()].join(', ')})`);
  return def;
}

export function createEnv(name: string, config: Record<string, unknown> = {}): Env {
  return getEnvDefinition(name).create(config);
}

export function renderSnapshot(snapshot: EnvSnapshot): string {
  if (snapshot.env === 'text') return snapshot.text;
  return getEnvDefinition(snapshot.env).renderSnapshot(snapshot as never);
}
