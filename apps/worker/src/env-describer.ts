import {
  claimPendingEnvironment,
  dbSettings,
  finishEnvironmentDescribe,
  realFolderUnderRoots,
  type Db,
  type EnvironmentRow,
} from '@starpo/db';
import { describeEnvAt } from '@starpo/trainer';

/** A worker that died while describing leaves its claim: another takes the registration after this long. */
const CLAIM_STALE_MS = 120_000;

type Described = { description: object } | { error: string };

/** One registration's description, or the error to show for it; a command runs only from a folder under ENV_ROOTS. */
export async function describeRegistration(row: EnvironmentRow, roots: readonly string[]): Promise<Described> {
  try {
    if (row.url) return { description: await describeEnvAt({ url: row.url }) };
    const cwd = realFolderUnderRoots(row.cwd!, roots);
    if (!cwd) return { error: `cwd "${row.cwd}" is not a folder under this worker's ENV_ROOTS once links are followed` };
    return { description: await describeEnvAt({ command: row.command as string[], cwd }) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Describes every pending registration this worker can take now, storing each description or error; how many. */
export async function describePendingEnvironments(
  db: Db,
  roots = dbSettings().envRoots,
  log: (m: string) => void = () => {},
): Promise<number> {
  let n = 0;
  for (let row = await claimPendingEnvironment(db, CLAIM_STALE_MS); row; row = await claimPendingEnvironment(db, CLAIM_STALE_MS)) {
    const result = await describeRegistration(row, roots);
    await finishEnvironmentDescribe(db, row.id, result);
    log(`environment ${row.name}: ${'error' in result ? `description failed: ${result.error}` : 'described, ready'}`);
    n++;
  }
  return n;
}

/** Looks for pending registrations every `intervalMs`, beside whatever job the worker runs; returns the stop. */
export function startEnvDescriber(db: Db, intervalMs: number, log: (m: string) => void): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    describePendingEnvironments(db, undefined, log)
      .catch((e: Error) => log(`describing registered environments: ${e.message}`))
      .finally(() => (busy = false));
  }, intervalMs);
  return () => clearInterval(timer);
}
