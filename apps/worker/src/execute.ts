import { databaseUrlOf, isLeaseLost, latestCheckpointFiles, startRunHeartbeat, type Db, type Run } from '@starpo/db';
import { runConfigSchema, USER_CANCEL_REASON } from '@starpo/contracts';
import { backendInfo, startPool, train, type TrainResult } from '@starpo/trainer';
import { loadRunBase } from './base-model.js';
import { DbSink, WORKER_SHUTDOWN } from './db-sink.js';
import { executePretrain } from './pretrain-job.js';
import { DEFAULT_COMPUTE_THREADS } from './settings.js';

/** Stop reason of a run whose lease moved on (requeued by a sweep, claimed by another worker, deleted). */
export const LEASE_LOST = 'lease lost';

/**
 * Execute one claimed training run to its end, resuming from its latest checkpoint if it has one.
 * `signal` stops it from outside (SIGTERM: checkpoint, then back to the queue). Every `cancelPollMs`
 * the run's heartbeat is refreshed under its lease, which also reports a cancel asked for through
 * the API (checkpoint, then `cancelled`) or a lease that is gone (stop at once, write nothing more).
 */
export async function executeRun(
  db: Db,
  run: Run,
  signal: AbortSignal,
  log: (msg: string) => void,
  opts: { cancelPollMs?: number; worker?: string; computeThreads?: string } = {},
): Promise<TrainResult> {
  const lease = run.leaseEpoch;
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
      void new DbSink(db, run.id, lease).log('warn', `${reason}: stopping the current phase, with a checkpoint`).catch(() => {});
      stop.abort(reason);
    }
  });
  try {
    if (run.kind === 'pretrain') return await executePretrain(db, run, log);
    return await executeTraining(db, run, stop.signal, log, opts.worker, opts.computeThreads);
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

async function executeTraining(
  db: Db,
  run: Run,
  signal: AbortSignal,
  log: (msg: string) => void,
  worker = 'unnamed',
  computeThreads = DEFAULT_COMPUTE_THREADS,
): Promise<TrainResult> {
  const sink = new DbSink(db, run.id, run.leaseEpoch);
  try {
    const config = runConfigSchema.parse(run.config);
    const claimedAt = Date.now();
    await sink.progress({
      phase: 'loading',
      step: run.currentStep,
      done: 0,
      total: 0,
      unit: '',
      startedAt: claimedAt,
      at: claimedAt,
      stepStartedAt: null,
      stepSeconds: null,
      validationSeconds: null,
    });
    const ckpt = await latestCheckpointFiles(db, run.id);
    const { bundle: base, sha } = await loadRunBase(db, run.teamId, config.model.base, config.training.seed);
    log(
      `run ${run.id} (${run.name}): ${config.env.name}, ${config.algorithm.advEstimator}, ${config.training.steps} steps${ckpt ? `, resuming from step ${ckpt.step}` : ''}`,
    );
    // CPU backends: rollouts and gradients shared by this many threads (STARPO_COMPUTE_THREADS)
    const threads = computeThreads;
    const pool = await startPool(threads, base.model, base.tokenizer, log);
    const backend = backendInfo();
    await sink.log(
      'info',
      `run ${ckpt ? `resumed from step ${ckpt.step}` : 'started'} on worker ${worker}: backend ${backend?.name ?? '?'} (${backend?.device ?? '?'}), ${pool ? pool.size + 1 : 1} compute thread(s) (STARPO_COMPUTE_THREADS=${threads}); base ${config.model.base} ${sha ? `sha256 ${sha}` : '(random init: from scratch)'}; ${config.env.name}, ${config.algorithm.advEstimator}, ${config.training.steps} steps`,
    );
    try {
      return await train({ config, base, sink, signal, resume: ckpt?.files, pool });
    } finally {
      await pool?.close();
      base.model.dispose();
    }
  } catch (e) {
    if (isLeaseLost(e) || signal.reason === LEASE_LOST) throw e;
    const message = await sink.failure(e);
    await sink.status({ status: 'failed', step: run.currentStep, totalSteps: run.totalSteps, error: message });
    return { status: 'failed', step: run.currentStep, stopReason: message };
  }
}
