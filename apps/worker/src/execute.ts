import { latestCheckpointFiles, type Db, type Run } from '@starpo/db';
import { runConfigSchema } from '@starpo/contracts';
import { baseWeightsChecksum, backendInfo, loadBaseModel, shippedBaseDir, startPool, train, type TrainResult } from '@starpo/trainer';
import { DbSink } from './db-sink.js';
import { executePretrain, materializeBaseModel } from './pretrain-job.js';

export const USER_CANCEL = 'cancelled by user';

/**
 * Execute one claimed training run to its end, resuming from its latest checkpoint if it has one.
 * `signal` stops it from outside (SIGTERM); a cancel asked for through the API is noticed by
 * polling the run row every `cancelPollMs`. Either way the trainer checkpoints and ends `cancelled`.
 */
export async function executeRun(
  db: Db,
  run: Run,
  signal: AbortSignal,
  log: (msg: string) => void,
  opts: { cancelPollMs?: number; worker?: string } = {},
): Promise<TrainResult> {
  if (run.kind === 'pretrain') return executePretrain(db, run, log);
  const sink = new DbSink(db, run.id);
  const stop = new AbortController();
  const onOuter = () => stop.abort(typeof signal.reason === 'string' ? signal.reason : 'worker shutting down');
  if (signal.aborted) onOuter();
  signal.addEventListener('abort', onOuter, { once: true });
  const poll = setInterval(() => {
    db.run
      .findUnique({ where: { id: run.id }, select: { cancelRequestedAt: true } })
      .then((r) => {
        if (r?.cancelRequestedAt && !stop.signal.aborted) {
          log(`run ${run.id}: cancel requested; stopping at the next phase boundary`);
          void sink.log('warn', 'cancel requested by the user: stopping at the next phase boundary, with a checkpoint').catch(() => {});
          stop.abort(USER_CANCEL);
        }
      })
      .catch(() => {}); // a database blip: try again next tick
  }, opts.cancelPollMs ?? 2000);
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
    const stored = await materializeBaseModel(db, run.teamId, config.model.base);
    let base;
    let sha: string | null;
    try {
      base = loadBaseModel(config.model.base, config.training.seed, () => stored?.dir);
      sha = baseWeightsChecksum(stored?.dir ?? shippedBaseDir(config.model.base) ?? config.model.base);
    } finally {
      stored?.cleanup(); // the weights are in memory now
    }
    log(
      `run ${run.id} (${run.name}): ${config.env.name}, ${config.algorithm.advEstimator}, ${config.training.steps} steps${ckpt ? `, resuming from step ${ckpt.step}` : ''}`,
    );
    // CPU backends: rollouts and gradients shared by this many threads (default one; `npm start` sets auto)
    const threads = process.env.STARPO_COMPUTE_THREADS ?? '1';
    const pool = await startPool(threads, base.model, base.tokenizer, log);
    const backend = backendInfo();
    await sink.log(
      'info',
      `run ${ckpt ? `resumed from step ${ckpt.step}` : 'started'} on worker ${opts.worker ?? 'unnamed'}: backend ${backend?.name ?? '?'} (${backend?.device ?? '?'}), ${pool ? pool.size + 1 : 1} compute thread(s) (STARPO_COMPUTE_THREADS=${threads}); base ${config.model.base} ${sha ? `sha256 ${sha}` : '(random init: from scratch)'}; ${config.env.name}, ${config.algorithm.advEstimator}, ${config.training.steps} steps`,
    );
    try {
      return await train({ config, base, sink, signal: stop.signal, resume: ckpt?.files, pool });
    } finally {
      await pool?.close();
      base.model.dispose();
    }
  } catch (e) {
    const message = (e as Error).message;
    await sink.log('error', (e as Error).stack ?? message).catch(() => {});
    await sink.status({ status: 'failed', step: run.currentStep, totalSteps: run.totalSteps, error: message });
    return { status: 'failed', step: run.currentStep, stopReason: message };
  } finally {
    clearInterval(poll);
    signal.removeEventListener('abort', onOuter);
  }
}
