import type { RunConfig } from '@starpo/contracts';
import { REWARD_ONLY_CONFIG_KEYS } from '@starpo/envs';
import { StopRequested } from '../util/stop.js';
import { startEnvServer } from '../envs/command.js';
import { TrainRun, type StopPoint, type TrainOptions, type TrainResult } from './run.js';

export type { TrainOptions, TrainResult } from './run.js';

/** A base pretrained on another observation format (say) than the run uses: worth a warning, not an error. */
export function envConfigMismatch(meta: Record<string, unknown>, c: RunConfig): string | null {
  const pre = meta.pretrain as { env?: string; envConfig?: Record<string, unknown> } | undefined;
  if (!pre?.envConfig || pre.env !== c.env.name) return null;
  const diff = Object.entries(pre.envConfig).filter(
    ([k, v]) => !REWARD_ONLY_CONFIG_KEYS.has(k) && JSON.stringify(c.env.config[k]) !== JSON.stringify(v),
  );
  if (!diff.length) return null;
  const list = diff.map(([k, v]) => `${k}=${JSON.stringify(v)} (run: ${JSON.stringify(c.env.config[k])})`).join(', ');
  return `the base model was pretrained with ${list}; set env.config to match unless this is intended`;
}

/**
 * The StarPO loop. Per step: rollout → collapse metrics on the unfiltered batch → StarPO-S filter
 * → batch adjustment → old (and reference) log-probs → values → advantages → critic and actor
 * updates → metrics → trajectories → checkpoint → validation; early stopping on RAGEN's rules.
 * A stop request inside a phase returns to the last finished step (its stop point), checkpoints
 * it and ends the run `cancelled`; inside an update, whose weights have left the stop point's, it
 * ends at the latest checkpoint instead. Either way a checkpoint holds whole steps only.
 */
export async function train(o: TrainOptions): Promise<TrainResult> {
  const remote = o.config.env.remote;
  if (!remote?.command) return trainOn(o);
  // an environment started by a command lives as long as the run (a worker has checked its cwd against ENV_ROOTS)
  const server = await startEnvServer(remote.command, remote.cwd!, remote.timeoutMs);
  try {
    return await trainOn({ ...o, config: { ...o.config, env: { ...o.config.env, remote: { ...remote, url: server.url } } } });
  } finally {
    server.stop();
  }
}

async function trainOn(o: TrainOptions): Promise<TrainResult> {
  const run = new TrainRun(o);
  let at: StopPoint | null = null;
  const mark = (step: number, validating: boolean) => (at = run.stopPoint(step, validating));
  try {
    return await steps(run, o, mark);
  } catch (e) {
    if (e instanceof StopRequested && at) return run.stopAt(at, e.reason);
    throw e;
  }
}

async function steps(run: TrainRun, o: TrainOptions, mark: (step: number, validating: boolean) => void): Promise<TrainResult> {
  if (o.resume) await run.resume(o.resume);
  const mismatch = envConfigMismatch(o.base.meta, run.c);
  if (mismatch) await run.sink.log('warn', mismatch);
  const first = run.startStep;
  await run.sink.status({ status: 'running', step: first - 1, totalSteps: run.total });
  if ((first === 1 && run.c.rollout.validation.beforeTraining) || run.pendingValidation) {
    mark(first - 1, true);
    const rule = await run.validate(first - 1);
    if (rule) {
      if (first > 1) {
        await run.sink.metrics(first - 1, { [`early_stopped/${rule}`]: 1 });
        await run.saveCheckpoint(first - 1);
      }
      return run.finish('stopped_early', first - 1, rule);
    }
  }

  for (let step = first; step <= run.total; step++) {
    if (run.cancelled()) {
      await run.saveCheckpoint(step - 1);
      return run.finish('cancelled', step - 1, run.cancelReason());
    }
    mark(step - 1, false);
    const timer = run.beginStep(step);
    const metrics: Record<string, number> = {};
    const trajs = await run.rollout(step, timer);
    const filt = run.filter(trajs, metrics);
    if (filt.kept.length > 0) {
      const samples = run.samples(trajs, filt, metrics);
      await run.score(samples, step, timer, metrics);
      await run.advantages(samples, timer, metrics);
      await run.update(samples, step, timer, metrics, trajs);
    }
    let rule = await run.report(step, trajs, filt, metrics, timer);
    const outOfTime = run.outOfTime(step, timer);
    const last = step === run.total || rule !== null || outOfTime;
    await run.checkpointIfDue(step, last);
    if (!rule && run.validationDue(step, last)) {
      mark(step, true);
      rule = await run.validate(step);
      if (rule) {
        await run.sink.metrics(step, { [`early_stopped/${rule}`]: 1 });
        await run.saveCheckpoint(step);
      }
    }
    if (rule) return run.finish('stopped_early', step, rule);
    if (outOfTime) return run.finish('succeeded', step, 'time limit');
  }
  return run.finish('succeeded', run.total);
}
