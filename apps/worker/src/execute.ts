import { latestCheckpointFiles, type Db, type Run } from '@starpo/db';
import { runConfigSchema } from '@starpo/contracts';
import { loadBaseModel, train, type TrainResult } from '@starpo/trainer';
import { DbSink } from './db-sink.js';

/** Execute one claimed training run to its end, resuming from its latest checkpoint if it has one. */
export async function executeRun(db: Db, run: Run, signal: AbortSignal, log: (msg: string) => void): Promise<TrainResult> {
  const sink = new DbSink(db, run.id);
  try {
    const config = runConfigSchema.parse(run.config);
    const ckpt = await latestCheckpointFiles(db, run.id);
    const base = loadBaseModel(config.model.base, config.training.seed);
    log(
      `run ${run.id} (${run.name}): ${config.env.name}, ${config.algorithm.advEstimator}, ${config.training.steps} steps${ckpt ? `, resuming from step ${ckpt.step}` : ''}`,
    );
    try {
      return await train({ config, base, sink, signal, resume: ckpt?.files });
    } finally {
      base.model.dispose();
    }
  } catch (e) {
    const message = (e as Error).message;
    await sink.log('error', (e as Error).stack ?? message).catch(() => {});
    await sink.status({ status: 'failed', step: run.currentStep, totalSteps: run.totalSteps, error: message });
    return { status: 'failed', step: run.currentStep, stopReason: message };
  }
}
