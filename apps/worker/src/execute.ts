import { databaseUrlOf, isLeaseLost, startRunHeartbeat, type Db, type Run } from '@starpo/db';
import { USER_CANCEL_REASON } from '@starpo/contracts';
import { StopRequested, type TrainResult } from '@starpo/trainer';
import { DbSink, WORKER_SHUTDOWN } from './db-sink.js';
import { LEASE_LOST, type Job, type JobContext, type JobKind } from './job.js';
import { executePretrain } from './pretrain-job.js';
import { DEFAULT_COMPUTE_THREADS } from './settings.js';
import { executeTraining } from './training-job.js';

export { LEASE_LOST } from './job.js';

/** Every kind of run a worker claims, and the job that executes it; all of them are stopped, fenced and ended alike (executeRun). */
const JOBS: Record<JobKind, Job> = { train: executeTraining, pretrain: executePretrain };

/**
 * Execute one claimed run, whatever its kind, to its end. `signal` stops it from outside (SIGTERM:
 * back to the queue). Every `cancelPollMs` the run's heartbeat is refreshed under its lease, which
 * also reports a cancel asked for through the API (the run ends `cancelled`) or a lease that is gone
 * (stop at once, write nothing more). The job sees all three as one stop signal, with its reason.
 */
export async function executeRun(
  db: Db,
  run: Run,
  signal: AbortSignal,
  log: (msg: string) => void,
  opts: { cancelPollMs?: number; worker?: string; computeThreads?: string } = {},
): Promise<TrainResult> {
  const lease = run.leaseEpoch;
  const sink = new DbSink(db, run.id, lease);
  const stop = new AbortController();
  const onOuter = () => stop.abort(typeof signal.reason === 'string' ? signal.reason : WORKER_SHUTDOWN);
  if (signal.aborted) onOuter();
  signal.addEventListener('abort', onOuter, { once: true });
  let lost = false;
  const databaseUrl = databaseUrlOf(db);
  if (!databaseUrl) throw new Error('executeRun needs a database client made by createDb');
  // from a thread of its own: a trainer or an environment holding this event loop cannot starve it
  const heartbeat = startRunHeartbeat({ databaseUrl, runId: run.id, lease, everyMs: opts.cancelPollMs ?? 2000 }, (r) => {
    if (r.lost) {
      lost = true;
      if (!stop.signal.aborted || stop.signal.reason !== LEASE_LOST) stop.abort(LEASE_LOST);
    } else if (r.cancelRequested && !stop.signal.aborted) {
      const reason = r.stopReason ?? USER_CANCEL_REASON; // names who cancelled, as the API recorded it
      log(`run ${run.id}: ${reason}; stopping it`);
      void sink.log('warn', `${reason}: stopping the current phase`).catch(() => {});
      stop.abort(reason);
    }
  });
  const ctx: JobContext = {
    db,
    run,
    sink,
    signal: stop.signal,
    log,
    worker: opts.worker ?? 'unnamed',
    computeThreads: opts.computeThreads ?? DEFAULT_COMPUTE_THREADS,
  };
  try {
    return await execute(JOBS[run.kind as JobKind], ctx);
  } catch (e) {
    if (!isLeaseLost(e) && !lost) throw e;
    // Another worker owns the run now (or it was requeued or deleted): nothing more may be written for it.
    // Its own log only: the run's log belongs to the new owner, which records the takeover as it resumes.
    const msg = `lost the lease on run ${run.id} (lease ${lease}): it was requeued, taken over by another worker or deleted; stopped it without writing further data`;
    console.error(`${opts.worker ?? `worker ${process.pid}`}: ${msg}`);
    return { status: 'cancelled', step: run.currentStep, stopReason: LEASE_LOST };
  } finally {
    await heartbeat.stop();
    signal.removeEventListener('abort', onOuter);
  }
}

/** Runs `job` and ends a run it did not end itself: a stop it kept nothing of, or a failure. A lost lease is the caller's. */
async function execute(job: Job | undefined, ctx: JobContext): Promise<TrainResult> {
  const { run, sink, signal } = ctx;
  try {
    if (!job) throw new Error(`a worker does not execute runs of kind ${run.kind}`);
    return await job(ctx);
  } catch (e) {
    if (isLeaseLost(e) || signal.reason === LEASE_LOST) throw e;
    const end = { step: run.currentStep, totalSteps: run.totalSteps };
    if (e instanceof StopRequested) {
      // cancelled, or back to the queue for a shutdown (the sink's hand-back): where it was when claimed
      await sink.status({ status: 'cancelled', ...end, stopReason: e.reason });
      return { status: 'cancelled', step: end.step, stopReason: e.reason };
    }
    const message = await sink.failure(e);
    await sink.status({ status: 'failed', ...end, error: message });
    return { status: 'failed', step: end.step, stopReason: message };
  }
}
