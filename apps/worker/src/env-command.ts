import { dbSettings, realFolderUnderRoots } from '@starpo/db';
import type { RunConfig } from '@starpo/contracts';

/**
 * A run's config once its `env.remote.command` may run here: its cwd, links followed, lies under
 * ENV_ROOTS (none by default, so no command runs until a deployment names a root). Throws otherwise.
 */
export function commandUnderEnvRoots(config: RunConfig, roots = dbSettings().envRoots): RunConfig {
  const remote = config.env.remote;
  if (!remote?.command) return config;
  const dir = realFolderUnderRoots(remote.cwd!, roots);
  if (!dir) throw new Error(`env.remote.cwd "${remote.cwd}" is not a folder under ENV_ROOTS once links are followed`);
  return { ...config, env: { ...config.env, remote: { ...remote, cwd: dir } } };
}
