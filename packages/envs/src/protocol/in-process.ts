import { z } from '../zod.js';
import type { EnvDefinition } from '../registry.js';
import type { Env, StepResult, TextSnapshot } from '../types.js';
import { ProtocolEpisode, EnvProtocolError } from './episode.js';
import type { EnvDescription, ProtocolEnvironment } from './schema.js';

/** Shape of a stored protocol turn, safe to draw. */
export const textSnapshotSchema: z.ZodType<TextSnapshot> = z.object({
  env: z.literal('text'),
  name: z.string().max(40),
  text: z.string().max(20_000),
  legend: z.string().max(2000).nullable(),
  state: z.record(z.string(), z.unknown()).nullable(),
  done: z.boolean(),
  success: z.boolean(),
});

/** An episode of an environment in this process that answers at once: the synchronous `Env` every built-in offers. */
class InProcessEnv extends ProtocolEpisode implements Env<TextSnapshot> {
  override reset(seed: number, stream = 0): string {
    return sync(super.reset(seed, stream), this.name);
  }
  override step(action: string): StepResult {
    return sync(super.step(action), this.name);
  }
}

function sync<T>(value: T | Promise<T>, name: string): T {
  if (value instanceof Promise) throw new EnvProtocolError(`${name}: an in-process environment must answer synchronously`);
  return value;
}

/** A protocol environment in this process: it describes itself at once. */
export interface InProcessEnvironment extends ProtocolEnvironment {
  describe(): EnvDescription;
}

/**
 * A built-in environment written against the protocol (Countdown): the same describe/reset/step an
 * HTTP environment serves, registered like the grids so every part of the system can use it.
 */
export function protocolEnvDefinition<S extends z.ZodObject>(
  server: InProcessEnvironment,
  configSchema: S,
): EnvDefinition<S, TextSnapshot> {
  const d = server.describe();
  return {
    name: d.name,
    title: d.title ?? d.name,
    description: d.description,
    legend: d.legend,
    configSchema,
    rolloutDefaults: d.limits,
    create: (config) => new InProcessEnv(server, d, configSchema.parse(config ?? {}) as Record<string, unknown>),
    renderSnapshot: (s) => s.text,
    // the observation is the drawing itself
    parseObservation: (text) => ({
      ok: true,
      snapshot: { env: 'text', name: d.name, text, legend: d.legend, state: null, done: false, success: false },
    }),
    snapshotSchema: textSnapshotSchema,
  };
}
