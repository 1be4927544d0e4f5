import type { Db, Run, RUN_TRANSITIONS } from '@starpo/db';
import type { TrainResult } from '@starpo/trainer';
import type { DbSink } from './db-sink.js';

/** Stop reason of a job whose lease moved on (requeued by a sweep, claimed by another worker, deleted). */
export const LEASE_LOST = 'lease lost';

/** The kinds of run a worker claims: each has its Job (execute.ts). */
export type JobKind = (typeof RUN_TRANSITIONS.claim.kinds)[number];

/** What a job is handed by executeRun, whatever its kind. */
export interface JobContext {
  db: Db;
  /** The claimed run; its lease epoch fences every write of `sink`. */
  run: Run;
  sink: DbSink;
  /**
   * The stop request: aborted with its reason (who cancelled, WORKER_SHUTDOWN or LEASE_LOST). A job
   * polls it between units of work no longer than a second or two.
   */
  signal: AbortSignal;
  log: (msg: string) => void;
  worker: string;
  computeThreads: string;
}

/**
 * One kind of job: executes its claimed run and reports through `ctx.sink`. It ends by returning
 * its result (a job that checkpoints ends a stop itself, as `train` does), or by throwing:
 * StopRequested for a stop it kept nothing of (executeRun then cancels or requeues the run as the
 * stop says; a requeued job starts over, or from the checkpoint it had when claimed), anything else
 * to fail the run.
 */
export type Job = (ctx: JobContext) => Promise<TrainResult>;
