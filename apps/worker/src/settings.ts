import os from 'node:os';
import { defineSettings, describedDefault, envVar } from '@starpo/contracts';
import { dbSettings, dbVars, EMBEDDED_DATABASE_URL, sweepTimings, sweepVars } from '@starpo/db';
// the trainer's settings alone, without loading tfjs (npm start's supervisor reads these lists too)
import { trainerSettings, trainerVars } from '@starpo/trainer/settings';

/** A worker's name when WORKER_NAME is unset. */
export const defaultWorkerName = (): string => `${os.hostname()}-${process.pid}`;

/** Compute threads when STARPO_COMPUTE_THREADS is unset: one (`npm start` sets auto). */
export const DEFAULT_COMPUTE_THREADS = '1';

/** Every environment variable a worker reads, its own and those of the packages it runs (docs/deployment.md is printed from it). */
export const workerEnv = defineSettings({
  DATABASE_URL: envVar.postgresUrl({ required: true, description: 'the database the worker takes runs from' }),
  WORKER_NAME: describedDefault(envVar.text({ description: 'the name the worker registers under (GET /api/workers)' }), '<host>-<pid>'),
  WORKER_POLL_MS: envVar.ms({ default: 2_000, description: 'an idle worker asks the queue for a run this often' }),
  WORKER_HEARTBEAT_MS: envVar.ms({
    default: 10_000,
    description: 'how often the worker heartbeats (and, at most every 2 s, checks its run for a cancel)',
  }),
  WORKER_SHUTDOWN_MS: envVar.ms({
    default: 30_000,
    description: 'on SIGTERM/SIGINT the current run is checkpointed and requeued within this, else handed back without a new checkpoint',
  }),
  STARPO_COMPUTE_THREADS: envVar.countOrAuto({
    default: DEFAULT_COMPUTE_THREADS,
    description: 'threads a run on the wasm or cpu backend computes on: a number or auto (one a core); npm start sets auto',
  }),
  ...sweepVars,
  ...dbVars,
  ...trainerVars,
});

export interface WorkerSettings {
  databaseUrl: string;
  name: string;
  pollMs: number;
  heartbeatMs: number;
  shutdownMs: number;
  computeThreads: string;
  staleMs: number;
  sweepMs: number;
}

/** The worker's settings from `env`; throws a SettingsError naming each bad variable. */
export function loadWorkerSettings(env: Record<string, string | undefined> = process.env): WorkerSettings {
  const s = workerEnv.parse(env);
  return Object.freeze({
    databaseUrl: s.DATABASE_URL,
    name: s.WORKER_NAME ?? defaultWorkerName(),
    pollMs: s.WORKER_POLL_MS,
    heartbeatMs: s.WORKER_HEARTBEAT_MS,
    shutdownMs: s.WORKER_SHUTDOWN_MS,
    computeThreads: s.STARPO_COMPUTE_THREADS,
    ...sweepTimings(s),
  });
}

/**
 * The worker process's settings from process.env, read once by main.ts before anything starts, with
 * those the database and trainer packages keep for themselves (the same variables, all checked here).
 */
export function workerProcessSettings(): WorkerSettings {
  const s = loadWorkerSettings();
  dbSettings();
  trainerSettings();
  return s;
}

/** `npm run diagnose`'s variables: it re-diagnoses stored trajectories, on the database of `npm start` unless told otherwise. */
export const diagnoseEnv = defineSettings({
  DATABASE_URL: envVar.postgresUrl({ default: EMBEDDED_DATABASE_URL, description: 'the database whose run is re-diagnosed' }),
  ...dbVars,
});

/** The database `npm run diagnose` works on, from `env`. */
export const loadDiagnoseDatabaseUrl = (env: Record<string, string | undefined> = process.env): string =>
  diagnoseEnv.parse(env).DATABASE_URL;
