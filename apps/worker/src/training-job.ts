import { latestCheckpointFiles } from '@starpo/db';
import { runConfigSchema } from '@starpo/contracts';
import { backendInfo, startPool, train, type TrainResult } from '@starpo/trainer';
import { loadRunBase } from './base-model.js';
import { commandUnderEnvRoots } from './env-command.js';
import type { JobContext } from './job.js';

/**
 * A training run: the StarPO loop on the run's config, resuming from its latest checkpoint if it has
 * one. A stop inside a phase goes back to the run's last whole step, checkpoints it and ends the run
 * (cancelled, or requeued by the sink for a shutdown).
 */
export async function executeTraining({ db, run, sink, signal, log, worker, computeThreads }: JobContext): Promise<TrainResult> {
  let config = runConfigSchema.parse(run.config);
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
  config = commandUnderEnvRoots(config);
  const { bundle: base, sha } = await loadRunBase(db, run.teamId, config.model.base, config.training.seed);
  log(
    `run ${run.id} (${run.name}): ${config.env.name}, ${config.algorithm.advEstimator}, ${config.training.steps} steps${ckpt ? `, resuming from step ${ckpt.step}` : ''}`,
  );
  try {
    // CPU backends: rollouts and gradients shared by this many threads (STARPO_COMPUTE_THREADS)
    const pool = await startPool(computeThreads, base.model, base.tokenizer, log);
    const backend = backendInfo();
    await sink.log(
      'info',
      `run ${ckpt ? `resumed from step ${ckpt.step}` : 'started'} on worker ${worker}: backend ${backend?.name ?? '?'} (${backend?.device ?? '?'}), ${pool ? pool.size + 1 : 1} compute thread(s) (STARPO_COMPUTE_THREADS=${computeThreads}); base ${config.model.base} ${sha ? `sha256 ${sha}` : '(random init: from scratch)'}; ${config.env.name}, ${config.algorithm.advEstimator}, ${config.training.steps} steps`,
    );
    try {
      return await train({ config, base, sink, signal, resume: ckpt?.files, pool });
    } finally {
      await pool?.close();
    }
  } finally {
    base.model.dispose();
  }
}
