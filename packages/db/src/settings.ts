import path from 'node:path';
import { defineSettings, describedDefault, envVar } from '@starpo/contracts';

/**
 * The variables this package reads, shared by every process that opens the database (API, workers,
 * `npm start`'s migrations): connection and query timeouts, the stale timeout of heartbeats and
 * MODEL_ROOTS. A process lists them among its own (see apps/api/src/settings.ts) to have them checked
 * at its start-up; this package reads its own values once, on first use.
 */

/** `npm start`'s embedded PostgreSQL listens here unless STARPO_PG_PORT says otherwise (or the port is taken). */
export const EMBEDDED_PG_PORT = 54329;
/** The database of `npm start`'s embedded PostgreSQL on its usual port: what the command-line tools default to. */
export const EMBEDDED_DATABASE_URL = `postgresql://postgres:postgres@127.0.0.1:${EMBEDDED_PG_PORT}/starpo`;

/** How a dead worker is noticed: no heartbeat for the stale timeout, checked every sweep interval. */
export const sweepVars = {
  WORKER_STALE_MS: envVar.ms({
    default: 60_000,
    description: 'a worker or run without a heartbeat for this long is lost: its run is requeued (or cancelled, if asked)',
  }),
  WORKER_SWEEP_MS: describedDefault(
    envVar.ms({ description: 'how often each API and worker process sweeps for lost runs' }),
    'min(15000, WORKER_STALE_MS / 4)',
  ),
};

/** The sweep interval when WORKER_SWEEP_MS is unset: often enough to notice a loss within a quarter of the stale timeout. */
export const defaultSweepMs = (staleMs: number): number => Math.min(15_000, staleMs / 4);

export const dbVars = {
  DB_QUERY_TIMEOUT_MS: envVar.ms({
    default: 30_000,
    description: 'a query fails after this long, on the client and the server (statement_timeout)',
  }),
  DB_CONNECT_TIMEOUT_MS: envVar.ms({ default: 10_000, description: 'opening a database connection gives up after this long' }),
  DB_IDLE_TX_TIMEOUT_MS: envVar.ms({
    default: 10_000,
    description: 'the server ends a session idle inside a transaction this long (a frozen client frees its locks)',
  }),
  MODEL_ROOTS: envVar.text({
    description: `absolute folders (separated by "${path.delimiter}") that runs may load model folders from; none by default`,
  }),
  ENV_ROOTS: envVar.text({
    description: `absolute folders (separated by "${path.delimiter}") under which a run's env.remote.command may run; none by default`,
  }),
};

const dbEnv = defineSettings(dbVars);

export interface DbSettings {
  queryTimeoutMs: number;
  connectTimeoutMs: number;
  idleInTransactionMs: number;
  /** MODEL_ROOTS as absolute, resolved paths (relative entries are ignored). */
  modelRoots: readonly string[];
  /** ENV_ROOTS, the same way. */
  envRoots: readonly string[];
}

/** A list of folders as absolute, resolved paths (relative entries are ignored). */
const absoluteFolders = (list: string | undefined): readonly string[] =>
  Object.freeze(
    (list ?? '')
      .split(path.delimiter)
      .filter((r) => r !== '' && path.isAbsolute(r))
      .map((r) => path.resolve(r)),
  );

/** This package's settings from `env`; throws a SettingsError naming each bad variable. */
export function loadDbSettings(env: Record<string, string | undefined> = process.env): DbSettings {
  const s = dbEnv.parse(env);
  return Object.freeze({
    queryTimeoutMs: s.DB_QUERY_TIMEOUT_MS,
    connectTimeoutMs: s.DB_CONNECT_TIMEOUT_MS,
    idleInTransactionMs: s.DB_IDLE_TX_TIMEOUT_MS,
    modelRoots: absoluteFolders(s.MODEL_ROOTS),
    envRoots: absoluteFolders(s.ENV_ROOTS),
  });
}

let current: DbSettings | null = null;

/** This process's settings, read from process.env on first use. */
export function dbSettings(): DbSettings {
  return (current ??= loadDbSettings());
}

/** The stale timeout and sweep interval, from a process's parsed sweepVars (the interval's default follows the timeout). */
export function sweepTimings(s: { WORKER_STALE_MS: number; WORKER_SWEEP_MS: number | undefined }): { staleMs: number; sweepMs: number } {
  return { staleMs: s.WORKER_STALE_MS, sweepMs: s.WORKER_SWEEP_MS ?? defaultSweepMs(s.WORKER_STALE_MS) };
}
