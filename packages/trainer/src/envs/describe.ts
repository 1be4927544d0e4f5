import type { EnvDescription } from '@starpo/envs';
import { startEnvServer } from './command.js';
import { HttpEnvironment, type HttpEnvOptions } from './http-env.js';

/** Where an environment is served: a URL, or a command whose cwd the caller has checked. */
export type EnvEndpoint = { url: string } | { command: readonly string[]; cwd: string };

/**
 * The environment's `GET /describe`, through the same client as a run's: at its URL, or from the
 * server its command starts, stopped once it has answered.
 */
export async function describeEnvAt(
  endpoint: EnvEndpoint,
  opts: HttpEnvOptions = { timeoutMs: 30_000, retries: 2 },
): Promise<EnvDescription> {
  if ('url' in endpoint) return new HttpEnvironment(endpoint.url, opts).describe();
  const server = await startEnvServer(endpoint.command, endpoint.cwd, opts.timeoutMs);
  try {
    return await new HttpEnvironment(server.url, opts).describe();
  } finally {
    server.stop();
  }
}
