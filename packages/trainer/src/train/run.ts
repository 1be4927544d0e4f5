import * as tf from '@tensorflow/tfjs';
import type { RunConfig, RunWarning } from '@starpo/contracts';
import { Rng, createEnv } from '@starpo/envs';
import { EarlyStopper, type StopRule } from '../algo/early-stop.js';
import { adjustBatch, filterGroups, type FilterResult } from '../algo/filter.js';
import { klEstimate } from '../algo/losses.js';
import { mean } from '../algo/stats.js';
import type { Qwen2Model } from '../model/qwen2.js';
import type { ModelBundle } from '../model/storage.js';
import type { ComputePool } from '../parallel/pool.js';
import { PolicyResponder } from '../rollout/responder.js';
import { rollout, type RolloutSettings } from '../rollout/rollout.js';
import { rolloutSettings } from '../rollout/settings.js';
import type { Trajectory } from '../rollout/types.js';
import { remoteCall, type RemoteEnvCall } from '../envs/source.js';
import { StopRequested, stopReason, throwIfStopped } from '../util/stop.js';
import { RunActivity } from './activity.js';
import { computeAdvantages } from './advantage-step.js';
import { actionSlots, joinRows, scoreSamples, segmentRows, toSample, valueSamples, type Sample } from './batch.js';
import { checkpointFiles, jsonFile, restoreCheckpoint, type Learners, type SavedState } from './checkpoint.js';
import { outOfTime } from './deadline.js';
import { diagnoseBatch } from './diagnose.js';
import { evaluatePolicy } from './evaluate.js';
import { learningRateAt } from './lr-schedule.js';
import { advantageMetrics, filterMetrics, groupRewards, rolloutMetrics, throughputMetrics, updateMetrics } from './metrics.js';
import { AdamW } from './optimizer.js';
import type { RunStatus, TrainSink } from './sink.js';
import { StepTimer } from './step-timer.js';
import { stepSummary } from './step-summary.js';
import { actorStep, criticStep } from './update.js';
import { placeOldLogProbs, scoreOldLogProbs } from './old-log-probs.js';
import { creditOnly } from './actor-rows.js';
import { LearningWatch } from './warnings.js';
import { distillExamples, shares } from './distill.js';

/** Max padded tokens per forward pass when scoring or updating (bounds memory). */
const SCORE_TOKENS = 4096;

export interface TrainOptions {
  config: RunConfig;
  base: ModelBundle;
  sink: TrainSink;
  /**
   * A stop request (cancel, shutdown, lost lease; its reason becomes the stop reason). Polled between
   * phases and, inside validation and rollout, between generated tokens; inside the update, between
   * micro-batches. The run checkpoints its last whole step and ends `cancelled`; a stop inside the
   * update drops that step and ends at the latest checkpoint (see `stopAt`).
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

/**
 * Where a stop inside a phase leaves the run: the last finished step with the random state it ended
 * with (a resumed run then repeats the interrupted step exactly), and whether its validation is still due.
 */
export interface StopPoint {
  step: number;
  rng: number[];
  reuse: RolloutBatch | null;
  pendingValidation: boolean;
}

/** A step's rollout batch, kept for online-K reuse. */
interface RolloutBatch {
  trajs: Trajectory[];
  seedsStep: number;
}

const needsCritic = (c: RunConfig) => c.algorithm.advEstimator === 'gae' || c.algorithm.advEstimator === 'bilevel_gae';

const optimizer = (c: RunConfig, lr: number, model: Qwen2Model) =>
  new AdamW({ lr, betas: c.ppo.betas, weightDecay: c.ppo.weightDecay, maxGradNorm: c.ppo.gradClip }, model.trainableVariables());

/**
 * One training run: its models, optimizers and random state, and the phases of a step (see `train`).
 * Phases add their metrics to the step's record as they go.
 */
export class TrainRun {
  readonly c: RunConfig;
  readonly total: number;
  readonly learners: Learners;
  startStep = 1;
  /** A stopped validation is run first when the run resumes. */
  pendingValidation = false;
  /** The step of the latest checkpoint saved or resumed from; null while there is none (the run starts from its base). */
  private checkpointed: number | null = null;
  /** Inside `update`: the weights and optimizer moments have left the stop point's, only a checkpoint holds a whole step. */
  private updating = false;
  /** The learners' files as the last whole step left them, kept when an update begins after a step with no checkpoint. */
  private beforeUpdate: Map<string, Uint8Array> | null = null;
  private rng: Rng;
  private reuseBatch: RolloutBatch | null = null;
  private validationSecs = 0;
  private readonly settings: RolloutSettings;
  private readonly pool: ComputePool | null;
  /** The action names turnCredit=action looks for in the replies. */
  private readonly envActions: readonly string[] | null;
  /** How the rollout reaches an environment served over HTTP. */
  private readonly remote: RemoteEnvCall | undefined;
  private readonly schedule: RunConfig['ppo']['lrSchedule'] & { horizon: number };
  private readonly stopper: EarlyStopper;
  private readonly watch: LearningWatch;
  private readonly activity: RunActivity;

  constructor(private readonly o: TrainOptions) {
    const c = (this.c = o.config);
    const policy = o.base.model;
    this.total = c.training.steps;
    this.settings = rolloutSettings(c);
    this.pool = o.pool ?? null;
    // an environment served elsewhere names its actions only at reset: its turns get the plain turn credit
    this.envActions = c.algorithm.turnCredit === 'action' && !c.env.remote ? createEnv(c.env.name, c.env.config).actions : null;
    this.remote = remoteCall(c.env.remote);
    this.schedule = { ...c.ppo.lrSchedule, horizon: c.ppo.lrSchedule.horizonSteps ?? this.total };
    const critic = needsCritic(c) ? policy.clone({ valueHead: true }) : null;
    const ref = c.ppo.kl.coef > 0 ? policy.clone({ trainable: false }) : null;
    const actorOpt = optimizer(c, c.ppo.actorLr, policy);
    const criticOpt = critic ? optimizer(c, c.ppo.criticLr, critic) : null;
    this.learners = { policy, critic, ref, actorOpt, criticOpt };
    this.stopper = new EarlyStopper(c.earlyStopping);
    this.watch = new LearningWatch(c);
    this.activity = new RunActivity(o.sink);
    this.rng = new Rng(c.training.seed);
  }

  get sink(): TrainSink {
    return this.o.sink;
  }

  cancelled(): boolean {
    return this.o.signal?.aborted ?? false;
  }

  cancelReason(): string {
    return stopReason(this.o.signal);
  }

  async resume(files: Map<string, Uint8Array>): Promise<void> {
    const st = await restoreCheckpoint(this.learners, files);
    this.rng = new Rng(st.rng);
    this.stopper.state = st.stopper;
    if (st.watch) this.watch.state = st.watch;
    this.startStep = st.step + 1;
    this.checkpointed = st.step;
    this.pendingValidation = st.pendingValidation === true && st.step > 0;
    await this.o.sink.log('info', `resumed from the checkpoint of step ${st.step}`);
  }

  /** Saves a checkpoint of `step` (with the current random state); returns its seconds. */
  async saveCheckpoint(step: number, opts: { pendingValidation?: boolean } = {}): Promise<number> {
    const t0 = performance.now();
    const files = await checkpointFiles(this.learners, this.o.base, this.c, this.savedState(step, opts.pendingValidation));
    await this.o.sink.checkpoint({ step, files });
    this.checkpointed = step;
    return (performance.now() - t0) / 1000;
  }

  /** What a resumed run continues from, besides the weights: the random state and the watchers' state as of `step`. */
  private savedState(step: number, pendingValidation?: boolean): SavedState {
    return {
      step,
      rng: this.rng.getState(),
      stopper: this.stopper.state,
      watch: this.watch.state,
      reuse: this.reuseBatch ? { seedsStep: this.reuseBatch.seedsStep } : null,
      ...(pendingValidation ? { pendingValidation: true } : {}),
    };
  }

  /** The state a stop from here on returns to. */
  stopPoint(step: number, validating: boolean): StopPoint {
    return { step, rng: this.rng.getState(), reuse: this.reuseBatch, pendingValidation: validating };
  }

  /**
   * A stop inside a phase: back to the stop point, checkpoint it and end `cancelled`. Inside an update
   * the weights and optimizer state are partly stepped: the step is dropped, and the checkpoint of the
   * stop point is written from the learners' files kept when the update began (or is the one saved
   * after the step before), so a resumed run repeats the dropped step exactly.
   */
  async stopAt(at: StopPoint, reason: string): Promise<TrainResult> {
    this.rng = new Rng(at.rng);
    this.reuseBatch = at.reuse;
    if (this.updating) {
      await this.o.sink.log('info', `stop requested (${reason}) during the update of step ${at.step + 1}: the step is dropped`);
      if (this.beforeUpdate) {
        const files = new Map(this.beforeUpdate).set('state.json', jsonFile(this.savedState(at.step)));
        await this.o.sink.checkpoint({ step: at.step, files });
      }
      return this.finish('cancelled', at.step, reason);
    }
    const during = at.pendingValidation ? `the validation of step ${at.step}` : `step ${at.step + 1}`;
    await this.o.sink.log('info', `stop requested (${reason}) during ${during}; checkpointing step ${at.step}`);
    await this.saveCheckpoint(at.step, { pendingValidation: at.pendingValidation });
    return this.finish('cancelled', at.step, reason);
  }

  async finish(status: RunStatus, step: number, stopReason?: string): Promise<TrainResult> {
    const { critic, ref, actorOpt, criticOpt } = this.learners;
    // a stop is a cancel or a hand-back (shutdown, lost lease): what follows is the caller's to say
    const what = status === 'cancelled' ? 'stopped' : `run ${status}`;
    this.activity.log(status === 'cancelled' ? 'warn' : 'info', `${what} at step ${step}${stopReason ? ` (${stopReason})` : ''}`);
    await this.activity.settled();
    await this.o.sink.status({ status, step, totalSteps: this.total, stopReason });
    critic?.dispose();
    ref?.dispose();
    actorOpt.dispose();
    criticOpt?.dispose();
    return { status, step, stopReason };
  }

  private async warn(ws: RunWarning[]): Promise<void> {
    for (const w of ws) {
      await this.activity.settled();
      if (this.o.sink.warning) await this.o.sink.warning(w);
      else await this.o.sink.log('warn', w.message);
    }
  }

  /** Turn-level progress of a rollout: an episode counts as done once it is no longer active. */
  private episodeProgress(): (turn: number, active: number) => void {
    let before = 0;
    let chunk = 0;
    return (turn, active) => {
      if (turn === 1) {
        before += chunk;
        chunk = active;
      }
      this.activity.advance(before + chunk - active);
    };
  }

  /** Validation of the current policy; returns the early-stopping rule it triggers, if any. */
  async validate(step: number): Promise<StopRule | null> {
    const { c, o } = this;
    o.onPhase?.('validation', step);
    const t0 = performance.now();
    const v = c.rollout.validation;
    await this.activity.begin('validation', step, v.size, 'episodes');
    // Validation has its own fixed-seed sampler, so it never shifts the training random stream.
    const { trajectories: trajs, metrics: m } = await evaluatePolicy(this.learners.policy, o.base.tokenizer, {
      env: c.env.name,
      envConfig: c.env.config,
      remote: this.remote,
      settings: this.settings,
      episodes: v.size,
      seedBase: v.seedBase,
      temperature: v.temperature,
      topP: c.rollout.topP,
      maxNewTokens: c.rollout.maxNewTokens,
      samplerSeed: v.seedBase + step,
      pool: this.pool,
      signal: o.signal,
      onTurn: this.episodeProgress(),
    });
    this.validationSecs = (performance.now() - t0) / 1000;
    const success = m[`val/${c.env.name}/success`] ?? 0;
    this.activity.end(`success ${(100 * success).toFixed(1)}%, well-formed ${(100 * (m['val/well_formed_rate'] ?? 0)).toFixed(1)}%`);
    m['timing_s/testing'] = this.validationSecs;
    await o.sink.metrics(step, m);
    await o.sink.trajectories(step, trajs, () => null);
    // val/success is the metric the warning names and the Success chart plots (equal to the run's one environment's)
    await this.warn(this.watch.onValidation(step, m['val/success'] ?? 0));
    return this.stopper.onValidation({ [`val/${c.env.name}/success`]: m[`val/${c.env.name}/success`] ?? 0 });
  }

  /** Sets the step's learning rates and starts its phase timer. */
  beginStep(step: number): StepTimer {
    const { actorOpt, criticOpt } = this.learners;
    actorOpt.setLearningRate(learningRateAt(this.c.ppo.actorLr, step, this.schedule));
    criticOpt?.setLearningRate(learningRateAt(this.c.ppo.criticLr, step, this.schedule));
    return new StepTimer(step, this.o.signal, this.o.onPhase);
  }

  /** 1. Rollout of the step's groups, or the last batch again (online-K: training.rolloutReuse). */
  async rollout(step: number, timer: StepTimer): Promise<Trajectory[]> {
    const { c, pool, o } = this;
    const fresh = this.reuseBatch === null || (step - 1) % c.training.rolloutReuse === 0;
    if (!fresh) return this.reuseBatch!.trajs;
    const { policy } = this.learners;
    const { tokenizer } = o.base;
    const trajs = await timer.time('gen', async () => {
      const seeds = Array.from({ length: c.rollout.envGroups }, (_, g) => c.rollout.trainSeedBase + (step - 1) * c.rollout.envGroups + g);
      const sampling = { maxNewTokens: c.rollout.maxNewTokens, temperature: c.rollout.temperature, topP: c.rollout.topP, batchSize: 128 };
      const req = {
        env: c.env.name,
        envConfig: c.env.config,
        remote: this.remote,
        seeds,
        groupSize: c.rollout.groupSize,
        split: 'train' as const,
        settings: this.settings,
      };
      await this.activity.begin('rollout', step, seeds.length * c.rollout.groupSize, 'episodes');
      const onTurn = this.episodeProgress();
      return (
        pool
          ? pool.rollout(policy, tokenizer, req, sampling, this.rng, onTurn, o.signal)
          : rollout(req, new PolicyResponder(policy, tokenizer, { ...sampling, signal: o.signal }), tokenizer, this.rng, onTurn)
      ).finally(() => this.activity.end());
    });
    this.reuseBatch = { trajs, seedsStep: step };
    return trajs;
  }

  /** 2. Collapse metrics on the unfiltered batch, 3. the StarPO-S filter over its groups. */
  filter(trajs: Trajectory[], metrics: Record<string, number>): FilterResult {
    Object.assign(metrics, rolloutMetrics(trajs, 'train'), diagnoseBatch(trajs, 'train'));
    const f = this.c.filter;
    const filt = filterGroups(groupRewards(trajs), { metric: f.metric, ratio: f.ratio, includeZero: f.includeZero });
    Object.assign(metrics, filterMetrics(filt));
    return filt;
  }

  /** Batch adjustment: the kept groups' trajectories, copied or cut to whole mini-batches. */
  samples(trajs: Trajectory[], filt: FilterResult, metrics: Record<string, number>): Sample[] {
    throwIfStopped(this.o.signal);
    const keptGroups = new Set(filt.kept);
    const selected = trajs.filter((t) => keptGroups.has(t.group));
    const n = Math.min(this.c.ppo.miniBatchSize, selected.length);
    const indices = adjustBatch(
      selected.map((_, i) => i),
      n,
      this.c.filter.adjustBatch,
      this.rng,
    );
    const samples = indices.map((i) => toSample(selected[i]!));
    const { tokenizer } = this.o.base;
    if (this.envActions) for (const x of samples) x.actionSlots = actionSlots(x.traj, (id) => tokenizer.decode([id]), this.envActions);
    metrics['train/batch_size'] = samples.length;
    return samples;
  }

  /**
   * 4. Reference log-probs, and old log-probs here only when the KL is in the reward (which needs
   * them at every trained position; otherwise the update takes them, see `update`), 5. critic values.
   */
  async score(samples: Sample[], step: number, timer: StepTimer, metrics: Record<string, number>): Promise<void> {
    const { c } = this;
    const { ref, critic } = this.learners;
    const { padId } = this.o.base.tokenizer;
    await this.activity.begin('scoring', step, samples.length, 'samples');
    // the model sees each segment as the sequence it was sampled from
    const rows = segmentRows(samples);
    if (ref) {
      await timer.time('ref', async () => {
        const s = joinRows(samples, (await scoreSamples(ref, rows, padId, SCORE_TOKENS, c.rollout.temperature)).logProbs);
        samples.forEach((x, i) => (x.refLogProbs = s[i]!));
      });
      if (this.oldLogProbsFirst()) {
        this.entropyMetric(await this.scoreOld(samples, false, timer), metrics);
        const klVals = this.refKl(samples, metrics);
        samples.forEach((s, i) => (s.klRewards = s.mask.map((m, t) => (m ? -c.ppo.kl.coef * klVals[i]![t]! : 0))));
      }
    }
    if (critic) {
      await timer.time('values', async () => {
        const v = joinRows(samples, await valueSamples(critic, rows, padId, SCORE_TOKENS));
        samples.forEach((x, i) => (x.values = v[i]!));
      });
    }
    this.activity.end();
  }

  /** A KL in the reward needs the old log-probs at every trained position before the advantages: `score` takes them then. */
  private oldLogProbsFirst(): boolean {
    return this.learners.ref !== null && this.c.ppo.kl.in === 'reward';
  }

  /** Old log-probs of `samples` (trimmed to their credit with `trim`) and the entropies of the scored positions. */
  private scoreOld(samples: Sample[], trim: boolean, timer: StepTimer): Promise<number[]> {
    const settings = { padId: this.o.base.tokenizer.padId, maxTokens: SCORE_TOKENS, temperature: this.c.rollout.temperature };
    return timer.time('old_log_prob', () => scoreOldLogProbs(this.learners.policy, samples, trim, settings, this.pool));
  }

  /** `actor/entropy`: the old policy's mean entropy where the update reads its log-probs (none when it reads none). */
  private entropyMetric(entropy: number[], metrics: Record<string, number>): void {
    if (entropy.length) metrics['actor/entropy'] = mean(entropy);
  }

  /** The KL estimate between the old and the reference policy per position, and its mean over the trained ones (`actor/kl_ref`). */
  private refKl(samples: Sample[], metrics: Record<string, number>): number[][] {
    const type = this.c.ppo.kl.type;
    const klVals = samples.map((s) =>
      tf.tidy(() => Array.from(klEstimate(tf.tensor1d(s.oldLogProbs), tf.tensor1d(s.refLogProbs!), type).dataSync())),
    );
    metrics['actor/kl_ref'] = mean(samples.flatMap((s, i) => klVals[i]!.filter((_, t) => s.mask[t])));
    return klVals;
  }

  /** 6. Advantages and returns of the configured estimator. */
  async advantages(samples: Sample[], timer: StepTimer, metrics: Record<string, number>): Promise<void> {
    const bonus = await timer.time('adv', async () => computeAdvantages(samples, this.c));
    Object.assign(metrics, advantageMetrics(samples, this.learners.critic !== null));
    // shown apart from train/reward, which stays the environment's own
    if (bonus !== null) metrics['train/reward/reasoning_bonus'] = bonus;
  }

  /**
   * 7. Critic and actor updates: ppo.epochs passes over shuffled mini-batches of whole trajectories.
   * Unless `score` took them, the old log-probs are taken here, before the first optimizer step:
   * the first mini-batch's from its own forward pass (the weights are still those it was sampled
   * with, as verl's on-policy update), the other mini-batches' scored only where the update reads them.
   */
  async update(samples: Sample[], step: number, timer: StepTimer, metrics: Record<string, number>, trajs: Trajectory[]): Promise<void> {
    const { c, pool } = this;
    const { policy, critic, actorOpt, criticOpt, ref } = this.learners;
    const { padId } = this.o.base.tokenizer;
    const actorStats: Record<string, number[]> = {};
    const criticStats: Record<string, number[]> = {};
    const push = (into: Record<string, number[]>, k: string, v: number) => (into[k] ??= []).push(v);
    const perEpoch = Math.ceil(samples.length / c.ppo.miniBatchSize);
    const distill = this.distillShares(trajs, perEpoch, metrics);
    let oldEntropy: number[] = [];
    await this.activity.begin('update', step, perEpoch * c.ppo.epochs, 'mini-batches');
    const stopped = () => new StopRequested(this.cancelReason());
    // a stop inside the update goes back to the step before: keep its learners unless a checkpoint already holds them
    this.beforeUpdate =
      this.checkpointed === step - 1 ? null : await checkpointFiles(this.learners, this.o.base, c, this.savedState(step - 1));
    for (let epoch = 0; epoch < c.ppo.epochs; epoch++) {
      const order = this.rng.shuffle(samples);
      const takeOld = epoch === 0 && !this.oldLogProbsFirst();
      if (takeOld) oldEntropy = await this.scoreOld(order.slice(c.ppo.miniBatchSize), creditOnly(c), timer);
      for (let i = 0; i < order.length; i += c.ppo.miniBatchSize) {
        // mini-batches count trajectories; the model trains on their segments
        const miniSamples = order.slice(i, i + c.ppo.miniBatchSize);
        const mini = segmentRows(miniSamples);
        // from the first optimizer step on, a stop drops the whole step (stopAt): a step is stored whole or not at all
        this.updating = true;
        if (critic && criticOpt) {
          const r = await timer.time('update_critic', () => criticStep(critic, criticOpt, mini, c, padId, SCORE_TOKENS, this.o.signal));
          if (r.stopped) throw stopped();
          push(criticStats, 'critic/vf_loss', r.loss);
          push(criticStats, 'critic/grad_norm', r.gradNorm);
          push(criticStats, 'critic/vf_clipfrac', r.extra.vf_clipfrac!);
          push(criticStats, 'critic/skipped_steps', r.skipped);
        }
        const onPolicy = takeOld && i === 0;
        const r = await timer.time('update_actor', () =>
          actorStep(policy, actorOpt, mini, c, padId, SCORE_TOKENS, pool, this.o.signal, {
            onPolicy,
            distill: distill && { examples: distill[i / c.ppo.miniBatchSize]!, coef: c.algorithm.solverDistill.coef },
          }),
        );
        if (r.stopped) throw stopped();
        if (onPolicy) {
          placeOldLogProbs(miniSamples, r.logProbs!);
          this.entropyMetric([...oldEntropy, ...r.entropy!], metrics);
          if (ref) this.refKl(samples, metrics);
        }
        push(actorStats, 'actor/loss', r.loss);
        push(actorStats, 'actor/grad_norm', r.gradNorm);
        push(actorStats, 'actor/skipped_steps', r.skipped);
        for (const [k, v] of Object.entries(r.extra)) push(actorStats, `actor/${k === 'entropy' ? 'entropy_loss' : k}`, v);
        this.activity.advance(epoch * perEpoch + i / c.ppo.miniBatchSize + 1);
      }
    }
    this.updating = false;
    this.beforeUpdate = null;
    this.activity.end();
    Object.assign(metrics, updateMetrics({ ...actorStats, ...criticStats }));
    metrics['actor/lr'] = actorOpt.settings.lr;
    if (criticOpt) metrics['critic/lr'] = criticOpt.settings.lr;
  }

  /** With solver distillation on: the labelled turns of the batch, one share per mini-batch of an epoch (each epoch sees them all). */
  private distillShares(trajs: Trajectory[], perEpoch: number, metrics: Record<string, number>) {
    if (this.c.algorithm.solverDistill.coef <= 0 || !trajs.length) return null;
    const d = distillExamples(trajs, this.c, this.settings, this.o.base.tokenizer, this.rng);
    metrics['distill/solver_agreement'] = d.agreement;
    metrics['distill/examples'] = d.examples.length;
    return shares(d.examples, perEpoch);
  }

  /**
   * 8. Early-stopping rules 1–2, then the step's metrics, summary, warnings, stored trajectories and
   * status. Returns the rule that ends the run, if any.
   */
  async report(step: number, trajs: Trajectory[], filt: FilterResult, metrics: Record<string, number>, timer: StepTimer) {
    Object.assign(metrics, timer.timing, throughputMetrics(trajs, timer.stepSeconds()));
    const rule = this.stopper.onStep({ emptyAfterFilter: filt.kept.length === 0, inGroupRewardStd: mean(filt.groupStd) });
    if (rule) metrics[`early_stopped/${rule}`] = 1;
    const { sink } = this.o;
    await sink.metrics(step, metrics);
    this.activity.stepDone(timer.timing['timing_s/step']!);
    this.activity.log('info', stepSummary(step, this.total, metrics));
    await this.warn(this.watch.onStep(step, metrics));
    const share = this.c.training.trainTrajectoryShare;
    if (share > 0) {
      const keptGroups = new Set(filt.kept);
      const stored = share >= 1 ? trajs : trajs.filter((_, i) => (i * 0.618034) % 1 < share);
      await sink.trajectories(step, stored, (t) => keptGroups.has(t.group));
    }
    await sink.status({ status: 'running', step, totalSteps: this.total });
    return rule;
  }

  /** Checkpoints every training.checkpointEvery steps and at the run's last step. */
  async checkpointIfDue(step: number, last: boolean): Promise<void> {
    const every = this.c.training.checkpointEvery;
    if ((every > 0 && step % every === 0) || last) {
      const secs = await this.saveCheckpoint(step);
      await this.o.sink.metrics(step, { 'timing_s/save_checkpoint': secs });
    }
  }

  /** Validation is due every rollout.validation.every steps and at the last step (never when every = 0). */
  validationDue(step: number, last: boolean): boolean {
    const every = this.c.rollout.validation.every;
    return every > 0 && (step % every === 0 || last);
  }

  /** Whether the step after this one (and the validations around it) would end past the deadline. */
  outOfTime(step: number, timer: StepTimer): boolean {
    const every = this.c.rollout.validation.every;
    return outOfTime({
      deadline: this.o.deadline,
      now: Date.now(),
      stepSecs: timer.timing['timing_s/step']!,
      validationSecs: this.validationSecs,
      validationEvery: every,
      validationDue: every > 0 && step % every === 0,
    });
  }
}
