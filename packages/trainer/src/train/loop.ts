import * as tf from '@tensorflow/tfjs';
import type { RunConfig, RunWarning } from '@starpo/contracts';
import { REWARD_ONLY_CONFIG_KEYS, Rng, createEnv } from '@starpo/envs';
import { EarlyStopper, type StopRule } from '../algo/early-stop.js';
import { adjustBatch, filterGroups } from '../algo/filter.js';
import { klEstimate } from '../algo/losses.js';
import { mean } from '../algo/stats.js';
import type { Qwen2Model } from '../model/qwen2.js';
import { modelFiles, type ModelBundle } from '../model/storage.js';
import { PolicyResponder } from '../rollout/responder.js';
import { rollout, type RolloutSettings } from '../rollout/rollout.js';
import type { Trajectory } from '../rollout/types.js';
import { computeAdvantages } from './advantage-step.js';
import { actionSlots, scoreSamples, toSample, valueSamples, type Sample } from './batch.js';
import { jsonFile, optimizerFile, parseJsonFile, restoreOptimizer, restoreWeights, weightsFile } from './checkpoint.js';
import { diagnoseBatch } from './diagnose.js';
import { evaluatePolicy } from './evaluate.js';
import { groupRewards, rolloutMetrics, summarize } from './metrics.js';
import { learningRateAt } from './lr-schedule.js';
import { AdamW } from './optimizer.js';
import type { RunStatus, TrainSink } from './sink.js';
import { actorStep, criticStep } from './update.js';
import { RunActivity } from './activity.js';
import { stepSummary } from './step-summary.js';
import { LearningWatch } from './warnings.js';
import type { ComputePool } from '../parallel/pool.js';
import { StopRequested, stopReason, throwIfStopped } from '../util/stop.js';

/** Max padded tokens per forward pass when scoring or updating (bounds memory). */
const SCORE_TOKENS = 4096;

export interface TrainOptions {
  config: RunConfig;
  base: ModelBundle;
  sink: TrainSink;
  /**
   * A stop request (cancel, shutdown, lost lease; its reason becomes the stop reason). Polled between
   * phases and, inside validation and rollout, between generated tokens; inside the update, between
   * micro-batches (the step then ends with the mini-batches applied so far). The run checkpoints its
   * last consistent step and ends `cancelled`.
   */
  signal?: AbortSignal;
  /** Files of a checkpoint to continue from. */
  resume?: Map<string, Uint8Array>;
  /**
   * Epoch ms. The run's last step is the one after which another step of the same length, and the final
   * validation that would follow it, would end past this; it then validates, checkpoints and ends
   * `succeeded` with stop reason `time limit`.
   */
  deadline?: number;
  onPhase?: (phase: string, step: number) => void;
  /** Worker threads that share rollouts, scoring and actor gradients (CPU backends). */
  pool?: ComputePool | null;
}

export interface TrainResult {
  status: RunStatus;
  step: number;
  stopReason?: string;
}

interface SavedState {
  step: number;
  rng: number[];
  stopper: EarlyStopper['state'];
  watch?: LearningWatch['state'];
  reuse: { seedsStep: number } | null;
  /** The step's validation was cut short by a stop: a resumed run runs it first. */
  pendingValidation?: boolean;
}

/**
 * Where a stop inside a phase leaves the run: the last finished step with the random state it ended
 * with (a resumed run then repeats the interrupted step exactly), and whether its validation is still due.
 * `handle` (set by the loop once it can checkpoint) saves that state and ends the run.
 */
interface StopPoint {
  step: number;
  rng: number[];
  reuse: { trajs: Trajectory[]; seedsStep: number } | null;
  pendingValidation: boolean;
  handle?: (reason: string) => Promise<TrainResult>;
}

export function rolloutSettings(c: RunConfig): RolloutSettings {
  return {
    maxTurns: c.rollout.maxTurns,
    maxActionsPerTurn: c.rollout.maxActionsPerTurn,
    maxActionsPerTraj: c.rollout.maxActionsPerTraj,
    maxResponseWords: 100,
    enableThink: c.format.enableThink,
    actionSeparator: c.format.actionSeparator,
    formatPenalty: c.format.formatPenalty,
    contextWindow: c.rollout.contextWindow,
    lastKTurns: c.rollout.lastKTurns,
    maxContextTokens: c.rollout.maxContextTokens,
  };
}

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

const needsCritic = (c: RunConfig) => c.algorithm.advEstimator === 'gae' || c.algorithm.advEstimator === 'bilevel_gae';

/**
 * The StarPO loop. Per step: rollout → collapse metrics on the unfiltered batch → StarPO-S filter
 * → batch adjustment → old (and reference) log-probs → values → advantages → critic and actor
 * updates → metrics → trajectories → checkpoint → validation; early stopping on RAGEN's rules.
 */
export async function train(o: TrainOptions): Promise<TrainResult> {
  const at: StopPoint = { step: 0, rng: [], reuse: null, pendingValidation: false };
  try {
    return await trainLoop(o, at);
  } catch (e) {
    if (e instanceof StopRequested && at.handle) return at.handle(e.reason);
    throw e;
  }
}

async function trainLoop(o: TrainOptions, at: StopPoint): Promise<TrainResult> {
  const c = o.config;
  const { tokenizer } = o.base;
  const policy = o.base.model;
  const settings = rolloutSettings(c);
  const total = c.training.steps;
  const pool = o.pool ?? null;
  // the action names turnCredit=action looks for in the replies
  const envActions = c.algorithm.turnCredit === 'action' ? createEnv(c.env.name, c.env.config).actions : null;
  const schedule = { ...c.ppo.lrSchedule, horizon: c.ppo.lrSchedule.horizonSteps ?? total };
  const critic: Qwen2Model | null = needsCritic(c) ? policy.clone({ valueHead: true }) : null;
  const ref: Qwen2Model | null = c.ppo.kl.coef > 0 ? policy.clone({ trainable: false }) : null;
  const actorOpt = new AdamW(
    { lr: c.ppo.actorLr, betas: c.ppo.betas, weightDecay: c.ppo.weightDecay, maxGradNorm: c.ppo.gradClip },
    policy.trainableVariables(),
  );
  const criticOpt = critic
    ? new AdamW(
        { lr: c.ppo.criticLr, betas: c.ppo.betas, weightDecay: c.ppo.weightDecay, maxGradNorm: c.ppo.gradClip },
        critic.trainableVariables(),
      )
    : null;
  const stopper = new EarlyStopper(c.earlyStopping);
  const watch = new LearningWatch(c);
  const activity = new RunActivity(o.sink);
  const warn = async (ws: RunWarning[]) => {
    for (const w of ws) {
      await activity.settled();
      if (o.sink.warning) await o.sink.warning(w);
      else await o.sink.log('warn', w.message);
    }
  };
  // turn-level progress of a rollout: an episode counts as done once it is no longer active
  const episodeProgress = () => {
    let before = 0;
    let chunk = 0;
    return (turn: number, active: number) => {
      if (turn === 1) {
        before += chunk;
        chunk = active;
      }
      activity.advance(before + chunk - active);
    };
  };
  let rng = new Rng(c.training.seed);
  let startStep = 1;
  let reuseBatch: { trajs: Trajectory[]; seedsStep: number } | null = null;
  let pendingValidation = false;

  if (o.resume) {
    const f = o.resume;
    restoreWeights(policy, f.get('policy.safetensors')!);
    if (critic) restoreWeights(critic, f.get('critic.safetensors')!);
    if (ref && f.has('reference.safetensors')) restoreWeights(ref, f.get('reference.safetensors')!);
    await restoreOptimizer(actorOpt, f.get('actor-optimizer.safetensors')!);
    if (criticOpt) await restoreOptimizer(criticOpt, f.get('critic-optimizer.safetensors')!);
    const st = parseJsonFile<SavedState>(f.get('state.json')!);
    rng = new Rng(st.rng);
    stopper.state = st.stopper;
    if (st.watch) watch.state = st.watch;
    startStep = st.step + 1;
    pendingValidation = st.pendingValidation === true && st.step > 0;
    await o.sink.log('info', `resumed from the checkpoint of step ${st.step}`);
  }

  const saveCheckpoint = async (step: number, opts: { pendingValidation?: boolean } = {}) => {
    const t0 = performance.now();
    const files = await modelFiles(policy, tokenizer, { ...o.base.meta, step });
    const state: SavedState = {
      step,
      rng: rng.getState(),
      stopper: stopper.state,
      watch: watch.state,
      reuse: reuseBatch ? { seedsStep: reuseBatch.seedsStep } : null,
      ...(opts.pendingValidation ? { pendingValidation: true } : {}),
    };
    files.set('policy.safetensors', await weightsFile(policy));
    files.delete('model.safetensors');
    if (critic) files.set('critic.safetensors', await weightsFile(critic));
    if (ref) files.set('reference.safetensors', await weightsFile(ref));
    files.set('actor-optimizer.safetensors', await optimizerFile(actorOpt));
    if (criticOpt) files.set('critic-optimizer.safetensors', await optimizerFile(criticOpt));
    files.set('state.json', jsonFile(state));
    files.set('run-config.json', jsonFile(c));
    await o.sink.checkpoint({ step, files });
    return (performance.now() - t0) / 1000;
  };

  let validationSecs = 0;
  const validate = async (step: number): Promise<StopRule | null> => {
    o.onPhase?.('validation', step);
    const t0 = performance.now();
    const v = c.rollout.validation;
    await activity.begin('validation', step, v.size, 'episodes');
    // Validation has its own fixed-seed sampler, so it never shifts the training random stream.
    const { trajectories: trajs, metrics: m } = await evaluatePolicy(policy, tokenizer, {
      env: c.env.name,
      envConfig: c.env.config,
      settings,
      episodes: v.size,
      seedBase: v.seedBase,
      temperature: v.temperature,
      topP: c.rollout.topP,
      maxNewTokens: c.rollout.maxNewTokens,
      samplerSeed: v.seedBase + step,
      pool,
      signal: o.signal,
      onTurn: episodeProgress(),
    });
    validationSecs = (performance.now() - t0) / 1000;
    const success = m[`val/${c.env.name}/success`] ?? 0;
    activity.end(`success ${(100 * success).toFixed(1)}%, well-formed ${(100 * (m['val/well_formed_rate'] ?? 0)).toFixed(1)}%`);
    m['timing_s/testing'] = validationSecs;
    await o.sink.metrics(step, m);
    await o.sink.trajectories(step, trajs, () => null);
    await warn(watch.onValidation(step, success));
    return stopper.onValidation({ [`val/${c.env.name}/success`]: m[`val/${c.env.name}/success`] ?? 0 });
  };

  const finish = async (status: RunStatus, step: number, stopReason?: string): Promise<TrainResult> => {
    activity.log(status === 'cancelled' ? 'warn' : 'info', `run ${status} at step ${step}${stopReason ? ` (${stopReason})` : ''}`);
    await activity.settled();
    await o.sink.status({ status, step, totalSteps: total, stopReason });
    critic?.dispose();
    ref?.dispose();
    actorOpt.dispose();
    criticOpt?.dispose();
    return { status, step, stopReason };
  };
  const cancelled = () => o.signal?.aborted ?? false;
  const cancelReason = () => stopReason(o.signal);
  const markStopPoint = (step: number, validating: boolean) =>
    Object.assign(at, { step, rng: rng.getState(), reuse: reuseBatch, pendingValidation: validating });
  at.handle = async (reason) => {
    rng = new Rng(at.rng);
    reuseBatch = at.reuse;
    const during = at.pendingValidation ? `the validation of step ${at.step}` : `step ${at.step + 1}`;
    await o.sink.log('info', `stop requested (${reason}) during ${during}; checkpointing step ${at.step}`);
    await saveCheckpoint(at.step, { pendingValidation: at.pendingValidation });
    return finish('cancelled', at.step, reason);
  };

  const mismatch = envConfigMismatch(o.base.meta, c);
  if (mismatch) await o.sink.log('warn', mismatch);
  await o.sink.status({ status: 'running', step: startStep - 1, totalSteps: total });
  if ((startStep === 1 && c.rollout.validation.beforeTraining) || pendingValidation) {
    markStopPoint(startStep - 1, true);
    const rule = await validate(startStep - 1);
    if (rule) {
      if (startStep > 1) {
        await o.sink.metrics(startStep - 1, { [`early_stopped/${rule}`]: 1 });
        await saveCheckpoint(startStep - 1);
      }
      return finish('stopped_early', startStep - 1, rule);
    }
  }

  for (let step = startStep; step <= total; step++) {
    if (cancelled()) {
      await saveCheckpoint(step - 1);
      return finish('cancelled', step - 1, cancelReason());
    }
    markStopPoint(step - 1, false);
    actorOpt.setLearningRate(learningRateAt(c.ppo.actorLr, step, schedule));
    criticOpt?.setLearningRate(learningRateAt(c.ppo.criticLr, step, schedule));
    const timing: Record<string, number> = {};
    const tStep = performance.now();
    const time = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      // an update, once begun, finishes its step (its weights are no longer those of the last checkpoint)
      if (!name.startsWith('update_')) throwIfStopped(o.signal);
      o.onPhase?.(name, step);
      const t0 = performance.now();
      const r = await fn();
      // a phase run once per mini-batch and epoch (update_actor, update_critic) reports its total
      timing[`timing_s/${name}`] = (timing[`timing_s/${name}`] ?? 0) + (performance.now() - t0) / 1000;
      return r;
    };

    // 1. rollout (or reuse the last batch: online-K)
    const fresh: boolean = reuseBatch === null || (step - 1) % c.training.rolloutReuse === 0;
    const trajs: Trajectory[] = fresh
      ? await time('gen', async () => {
          const seeds = Array.from(
            { length: c.rollout.envGroups },
            (_, g) => c.rollout.trainSeedBase + (step - 1) * c.rollout.envGroups + g,
          );
          const sampling = {
            maxNewTokens: c.rollout.maxNewTokens,
            temperature: c.rollout.temperature,
            topP: c.rollout.topP,
            batchSize: 128,
          };
          const req = {
            env: c.env.name,
            envConfig: c.env.config,
            seeds,
            groupSize: c.rollout.groupSize,
            split: 'train' as const,
            settings,
          };
          await activity.begin('rollout', step, seeds.length * c.rollout.groupSize, 'episodes');
          const onTurn = episodeProgress();
          return (
            pool
              ? pool.rollout(policy, tokenizer, req, sampling, rng, onTurn, o.signal)
              : rollout(req, new PolicyResponder(policy, tokenizer, { ...sampling, signal: o.signal }), tokenizer, rng, onTurn)
          ).finally(() => activity.end());
        })
      : reuseBatch!.trajs;
    if (fresh) reuseBatch = { trajs, seedsStep: step };
    const metrics: Record<string, number> = { ...rolloutMetrics(trajs, 'train'), ...diagnoseBatch(trajs, 'train') };

    // 2. collapse metrics on the unfiltered batch, 3. filter
    const groups = groupRewards(trajs);
    const filt = filterGroups(groups, { metric: c.filter.metric, ratio: c.filter.ratio, includeZero: c.filter.includeZero });
    const inGroupStd = mean(filt.groupStd);
    Object.assign(metrics, {
      'rollout/in_group_reward_std': inGroupStd,
      'rollout/in_group_reward_std_max': Math.max(...filt.groupStd),
      'rollout/in_group_reward_mean': mean(filt.groupMean),
      'rollout/chosen_in_group_reward_std': filt.kept.length ? mean(filt.kept.map((g) => filt.groupStd[g]!)) : 0,
      'rollout/chosen_in_group_reward_mean': filt.kept.length ? mean(filt.kept.map((g) => filt.groupMean[g]!)) : 0,
      'rollout/filter_kept_ratio': filt.keptRatio,
      'rollout/filter_zero_std_groups': filt.zeroStdGroups,
      'rollout/empty_after_filter': filt.kept.length === 0 ? 1 : 0,
    });
    const keptGroups = new Set(filt.kept);
    const kept = (t: Trajectory) => keptGroups.has(t.group);

    if (filt.kept.length > 0) {
      throwIfStopped(o.signal);
      const selected = trajs.filter(kept);
      const indices = adjustBatch(
        selected.map((_, i) => i),
        Math.min(c.ppo.miniBatchSize, selected.length),
        c.filter.adjustBatch,
        rng,
      );
      const samples: Sample[] = indices.map((i) => toSample(selected[i]!));
      if (envActions) for (const x of samples) x.actionSlots = actionSlots(x.traj, (id) => tokenizer.decode([id]), envActions);
      metrics['train/batch_size'] = samples.length;

      // 4. old and reference log-probs, 5. values
      await activity.begin('scoring', step, samples.length, 'samples');
      await time('old_log_prob', async () => {
        const score = (xs: { ids: number[] }[]) => scoreSamples(policy, xs, tokenizer.padId, SCORE_TOKENS, c.rollout.temperature);
        const s = pool
          ? await pool.score(policy, samples, tokenizer.padId, SCORE_TOKENS, c.rollout.temperature, score)
          : await score(samples);
        samples.forEach((x, i) => ((x.oldLogProbs = s.logProbs[i]!), (x.entropy = s.entropy[i]!)));
      });
      if (ref) {
        await time('ref', async () => {
          const s = await scoreSamples(ref, samples, tokenizer.padId, SCORE_TOKENS, c.rollout.temperature);
          samples.forEach((x, i) => (x.refLogProbs = s.logProbs[i]!));
        });
        const klVals = samples.map((s) =>
          tf.tidy(() => Array.from(klEstimate(tf.tensor1d(s.oldLogProbs), tf.tensor1d(s.refLogProbs!), c.ppo.kl.type).dataSync())),
        );
        metrics['actor/kl_ref'] = mean(samples.flatMap((s, i) => klVals[i]!.filter((_, t) => s.mask[t])));
        if (c.ppo.kl.in === 'reward')
          samples.forEach((s, i) => (s.rewards = s.rewards.map((r, t) => (s.mask[t] ? r - c.ppo.kl.coef * klVals[i]![t]! : r))));
      }
      if (critic) {
        await time('values', async () => {
          const v = await valueSamples(critic, samples, tokenizer.padId, SCORE_TOKENS);
          samples.forEach((x, i) => (x.values = v[i]!));
        });
      }
      activity.end();
      // 6. advantages
      await time('adv', async () => computeAdvantages(samples, c));
      const maskedAdv = samples.flatMap((s) => s.advantages.filter((_, t) => s.mask[t]));
      const maskedRet = samples.flatMap((s) => s.returns.filter((_, t) => s.mask[t]));
      Object.assign(metrics, summarize('critic/advantages', maskedAdv), summarize('critic/returns', maskedRet));
      metrics['actor/entropy'] = mean(samples.flatMap((s) => s.entropy.filter((_, t) => s.mask[t])));
      if (critic) {
        const vals = samples.flatMap((s) => s.values!.filter((_, t) => s.mask[t]));
        const resid = maskedRet.map((r, i) => r - vals[i]!);
        const varR = mean(maskedRet.map((r) => (r - mean(maskedRet)) ** 2));
        metrics['critic/vf_explained_var'] = varR > 0 ? 1 - mean(resid.map((x) => (x - mean(resid)) ** 2)) / varR : 0;
        Object.assign(metrics, summarize('critic/values', vals));
      }

      // 7. updates: ppoEpochs passes over shuffled mini-batches of whole trajectories
      const actorStats: Record<string, number[]> = {};
      const criticStats: Record<string, number[]> = {};
      const push = (into: Record<string, number[]>, k: string, v: number) => (into[k] ??= []).push(v);
      const perEpoch = Math.ceil(samples.length / c.ppo.miniBatchSize);
      await activity.begin('update', step, perEpoch * c.ppo.epochs, 'mini-batches');
      // a stop ends the update between micro-batches; the step goes on with the mini-batches applied so far
      updates: for (let epoch = 0; epoch < c.ppo.epochs; epoch++) {
        const order = rng.shuffle(samples);
        for (let i = 0; i < order.length; i += c.ppo.miniBatchSize) {
          const mini = order.slice(i, i + c.ppo.miniBatchSize);
          if (critic && criticOpt) {
            const r = await time('update_critic', () => criticStep(critic, criticOpt, mini, c, tokenizer.padId, SCORE_TOKENS, o.signal));
            if (r.stopped) break updates;
            push(criticStats, 'critic/vf_loss', r.loss);
            push(criticStats, 'critic/grad_norm', r.gradNorm);
            push(criticStats, 'critic/vf_clipfrac', r.extra.vf_clipfrac!);
            push(criticStats, 'critic/skipped_steps', r.skipped);
          }
          if (cancelled()) break updates;
          const r = await time('update_actor', () => actorStep(policy, actorOpt, mini, c, tokenizer.padId, SCORE_TOKENS, pool, o.signal));
          if (r.stopped) break updates;
          push(actorStats, 'actor/loss', r.loss);
          push(actorStats, 'actor/grad_norm', r.gradNorm);
          push(actorStats, 'actor/skipped_steps', r.skipped);
          for (const [k, v] of Object.entries(r.extra)) push(actorStats, `actor/${k === 'entropy' ? 'entropy_loss' : k}`, v);
          activity.advance(epoch * perEpoch + i / c.ppo.miniBatchSize + 1);
        }
      }
      const applied = actorStats['actor/loss']?.length ?? 0;
      if (applied < perEpoch * c.ppo.epochs)
        activity.log(
          'warn',
          `stop requested during the update of step ${step}: ${applied} of ${perEpoch * c.ppo.epochs} mini-batches applied`,
        );
      activity.end();
      for (const [k, v] of Object.entries({ ...actorStats, ...criticStats }))
        metrics[k] = k.endsWith('skipped_steps') ? v.reduce((a, b) => a + b, 0) : mean(v);
      metrics['actor/lr'] = actorOpt.settings.lr;
      if (criticOpt) metrics['critic/lr'] = criticOpt.settings.lr;
    }

    const tokens = trajs.reduce((a, t) => a + t.ids.length, 0);
    timing['timing_s/step'] = (performance.now() - tStep) / 1000;
    Object.assign(metrics, timing, { 'perf/total_num_tokens': tokens, 'perf/tokens_per_s': tokens / timing['timing_s/step']! });

    // 8. early stopping rules 1–2
    let rule = stopper.onStep({ emptyAfterFilter: filt.kept.length === 0, inGroupRewardStd: inGroupStd });
    if (rule) metrics[`early_stopped/${rule}`] = 1;
    await o.sink.metrics(step, metrics);
    activity.stepDone(timing['timing_s/step']);
    activity.log('info', stepSummary(step, total, metrics));
    await warn(watch.onStep(step, metrics));
    if (c.training.trainTrajectoryShare > 0) {
      const share = c.training.trainTrajectoryShare;
      const stored = share >= 1 ? trajs : trajs.filter((_, i) => (i * 0.618034) % 1 < share);
      await o.sink.trajectories(step, stored, kept);
    }
    await o.sink.status({ status: 'running', step, totalSteps: total });

    const every = c.rollout.validation.every;
    const validationDue = every > 0 && step % every === 0;
    // Going on costs this step's scheduled validation, one more step and the validation that ends the run.
    const nextSecs = timing['timing_s/step'] + (every > 0 ? validationSecs * (validationDue ? 2 : 1) : 0);
    const outOfTime = o.deadline !== undefined && Date.now() + nextSecs * 1000 > o.deadline;
    const last = step === total || rule !== null || outOfTime;
    if ((c.training.checkpointEvery > 0 && step % c.training.checkpointEvery === 0) || last) {
      const secs = await saveCheckpoint(step);
      await o.sink.metrics(step, { 'timing_s/save_checkpoint': secs });
    }
    if (!rule && every > 0 && (validationDue || last)) {
      markStopPoint(step, true);
      rule = await validate(step);
      if (rule) {
        await o.sink.metrics(step, { [`early_stopped/${rule}`]: 1 });
        await saveCheckpoint(step);
      }
    }
    if (rule) return finish('stopped_early', step, rule);
    if (outOfTime) return finish('succeeded', step, 'time limit');
  }
  return finish('succeeded', total);
}
