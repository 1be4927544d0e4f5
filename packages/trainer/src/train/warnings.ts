import { WARNING_METRICS as METRIC, type RunConfig, type RunWarning, type RunWarningCode } from '@starpo/contracts';

/** Steps in a row with no well-formed reply before the run says it cannot learn. */
export const MALFORMED_STEPS = 2;
/** One action above this share of all executed actions is a collapse onto a state-blind shortcut. */
export const ACTION_SHARE_LIMIT = 0.8;
/** Fewer executed actions than this in a batch say nothing about the policy's action mix. */
const MIN_ACTIONS_FOR_SHARE = 20;
/** Steps whose in-group reward std or entropy must stay low before a warning (noise gives single low steps). */
const FALLING_STEPS = 3;
/** Steps that form the baseline of the in-group reward std and of the entropy. */
const BASELINE_STEPS = 3;
const FALLING_SHARE = 0.3;
const EMPTY_STEPS = 2;
const LOW_VALIDATIONS = 2;

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

type WatchedConfig = Pick<RunConfig, 'model' | 'env' | 'earlyStopping' | 'rollout' | 'ppo' | 'filter'>;

/**
 * The remedies a warning may suggest, each worded against the run's own config: one already in use
 * is left out or becomes "more of it" with the current value, so the advice never asks for a
 * setting the run has.
 */
function remedies(c: WatchedConfig) {
  const { ppo, filter, rollout } = c;
  const envConfig = (c.env.config ?? {}) as { rewardShaping?: string };
  const clipHigher = ppo.clipRatioHigh > ppo.clipRatioLow;
  // the paper's clip-higher 0.28, or more where the low clip already reaches it: never the run's own value
  const clipHigh = ppo.clipRatioLow < 0.28 ? 0.28 : Number((ppo.clipRatioLow + 0.08).toFixed(2));
  const missingStarpoS = [filter.ratio >= 1 ? 'filter.ratio 0.25' : null, clipHigher ? null : `ppo.clipRatioHigh ${clipHigh}`];
  return {
    lowerLr: `a lower ppo.actorLr (now ${ppo.actorLr})`,
    lrDecay: ppo.lrSchedule.type === 'constant' ? 'an lr decay (ppo.lrSchedule.type linear or cosine)' : null,
    kl: ppo.kl.coef === 0 ? 'a KL term (ppo.kl.coef, e.g. 0.001)' : `a larger KL term (ppo.kl.coef, now ${ppo.kl.coef})`,
    entropy:
      ppo.entropyCoef === 0
        ? 'an entropy bonus (ppo.entropyCoef, e.g. 0.001)'
        : `a larger entropy bonus (ppo.entropyCoef, now ${ppo.entropyCoef})`,
    temperature: rollout.temperature < 2 ? `a higher rollout.temperature (now ${rollout.temperature})` : null,
    groupSize: `more rollouts per group (rollout.groupSize, now ${rollout.groupSize})`,
    // only where the environment offers shaping (its parsed config carries the setting) and it is off
    shaping: envConfig.rewardShaping === 'none' ? 'a shaped reward (env.config.rewardShaping)' : null,
    varianceFilter: filter.ratio >= 1 ? 'the StarPO-S variance filter (filter.ratio 0.25)' : null,
    clipHigher: clipHigher ? null : `clip-higher (ppo.clipRatioHigh ${clipHigh}, above ppo.clipRatioLow, now ${ppo.clipRatioLow})`,
    // only the StarPO-S settings the run lacks
    starpoS: missingStarpoS.some(Boolean) ? `the StarPO-S settings (${missingStarpoS.filter(Boolean).join(', ')})` : null,
    includeZero: filter.includeZero ? null : 'filter.includeZero=true',
    widerFilter: filter.ratio < 1 ? `a larger filter.ratio (now ${filter.ratio})` : null,
  };
}

/** "Change: a, b or c." from the remedies that apply; a run that already has them all is told so. */
function change(options: (string | null)[]): string {
  const xs = options.filter((x): x is string => x !== null);
  if (!xs.length) return "The usual remedies are already in this run's config: look at its trajectories.";
  return `Change: ${xs.length === 1 ? xs[0] : `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}`}.`;
}

/**
 * Watches a run's step and validation metrics for the signs that it cannot learn (or has stopped
 * learning) and says so with the likely cause and what to change. A warning is raised once when its
 * condition starts and again only after the condition has cleared. State is plain data (checkpointed).
 */
export class LearningWatch {
  state = {
    malformed: 0,
    empty: 0,
    lowVal: 0,
    stdBase: [] as number[],
    entropyBase: [] as number[],
    stdLow: 0,
    entropyLow: 0,
    active: [] as RunWarningCode[],
  };

  private readonly fix: ReturnType<typeof remedies>;

  constructor(private readonly c: WatchedConfig) {
    this.fix = remedies(c);
  }

  /** After a training step, with its metrics (train/…, rollout/…, actor/…). */
  onStep(step: number, m: Record<string, number>): RunWarning[] {
    const s = this.state;
    const fix = this.fix;
    const raised: RunWarning[] = [];
    const check = (code: RunWarningCode, on: boolean, message: () => string) => {
      const was = s.active.includes(code);
      if (on && !was) {
        s.active = [...s.active, code];
        raised.push({ code, step, message: message() });
      } else if (!on && was) s.active = s.active.filter((x) => x !== code);
    };

    const wellFormed = m['train/well_formed_rate'];
    s.malformed = wellFormed === 0 ? s.malformed + 1 : 0;
    const scratch = this.c.model.base.startsWith('starpo-tiny/');
    check(
      'no_well_formed_replies',
      s.malformed >= MALFORMED_STEPS,
      () =>
        `No reply was well-formed in the last ${s.malformed} steps (${METRIC.no_well_formed_replies} 0): every turn gets the format penalty, so no reply is better than another and there is nothing to learn. ` +
        (scratch
          ? `Likely cause: the run starts from scratch (${this.c.model.base}), which has never seen the reply format. Start from a pretrained base (model.base, e.g. starpo-base/${this.c.env.name}-tiny where one ships, or one made with POST /api/base-models).`
          : `Likely cause: the base model (${this.c.model.base}) does not write the reply format this run asks for (format.*, rollout.maxNewTokens too short to close </answer>). Check the format settings against the base's pretraining, or pretrain a base for this environment.`),
    );

    const empty = m[METRIC.empty_filtered_batches] === 1;
    s.empty = empty ? s.empty + 1 : 0;
    check(
      'empty_filtered_batches',
      s.empty >= EMPTY_STEPS,
      () =>
        `The variance filter left no group to train on for ${s.empty} steps in a row (${METRIC.empty_filtered_batches} 1; the first echo-trap rule stops the run after ${this.c.earlyStopping.emptyBatchSteps}). Likely cause: every group's rollouts scored alike. ${change([fix.includeZero, fix.widerFilter, fix.groupSize, fix.temperature])}`,
    );

    const stdMax = m[METRIC.no_reward_variance];
    check(
      'no_reward_variance',
      !empty && stdMax !== undefined && stdMax === 0,
      () =>
        `Every group's rollouts got exactly the same reward (${METRIC.no_reward_variance} 0), so every group-relative advantage is 0 and this update has no signal. Likely cause: ${wellFormed === 0 ? 'all replies broke the format (each scored the format penalty)' : 'the task is too hard or too easy for the policy at this temperature, with a sparse reward'}. ${change([fix.groupSize, fix.temperature, fix.shaping])}`,
    );

    const grad = m[METRIC.zero_grad_norm];
    check(
      'zero_grad_norm',
      grad !== undefined && grad === 0,
      () =>
        `The actor's gradient norm (${METRIC.zero_grad_norm}) was 0: no token of the batch carried an advantage, so the weights did not move. Likely cause: ${stdMax === 0 ? 'no reward variance within any group' : 'every advantage was zero or dropped (algorithm.negativeAdvantageScale 0 with no positive credit, or groundedCreditOnly removing all of it)'}. Change: see the reward-variance settings (rollout.groupSize, rollout.temperature, env.config.rewardShaping) or the credit settings (algorithm.*).`,
    );

    const shares = Object.entries(m).filter(([k]) => k.startsWith(`${METRIC.action_collapse}/`));
    const top = shares.sort((a, b) => b[1] - a[1])[0];
    const executed = (m['train/num_actions'] ?? 0) * this.c.rollout.envGroups * this.c.rollout.groupSize;
    const enough = executed >= MIN_ACTIONS_FOR_SHARE;
    check(
      'action_collapse',
      top !== undefined && enough && top[1] > ACTION_SHARE_LIMIT,
      () =>
        `${pct(top![1])} of the executed actions were "${top![0].slice(METRIC.action_collapse.length + 1)}" (${top![0]}): the policy is drifting to one action whatever the board, a shortcut that a few lucky successes reward. ${change([fix.lowerLr, fix.lrDecay, fix.kl, fix.entropy])}`,
    );

    // echo-trap signs (the second early-stopping rule watches the same std): a collapse of in-group variance or entropy
    const std = m[METRIC.reward_variance_falling];
    if (std !== undefined && !empty) {
      if (s.stdBase.length < BASELINE_STEPS) s.stdBase.push(std);
      else s.stdLow = std < FALLING_SHARE * mean(s.stdBase) ? s.stdLow + 1 : 0;
    }
    check(
      'reward_variance_falling',
      s.stdLow >= FALLING_STEPS,
      () =>
        `The in-group reward std (${METRIC.reward_variance_falling}) has stayed below ${pct(FALLING_SHARE)} of its first steps' level (${mean(s.stdBase).toFixed(3)}) for ${s.stdLow} steps: the rollouts of a group all do the same thing, the echo trap's first sign (the run stops early when it falls under ${pct(this.c.earlyStopping.rewardStdFraction)}). ${change([fix.varianceFilter, fix.clipHigher, fix.lowerLr, fix.temperature])}`,
    );
    // one metric only, the one the message names and the run page charts (not the rollouts' train/entropy)
    const ent = m[METRIC.entropy_collapse];
    if (ent !== undefined) {
      if (s.entropyBase.length < BASELINE_STEPS) s.entropyBase.push(ent);
      else s.entropyLow = ent < FALLING_SHARE * mean(s.entropyBase) ? s.entropyLow + 1 : 0;
    }
    check(
      'entropy_collapse',
      s.entropyLow >= FALLING_STEPS,
      () =>
        `The policy's entropy (${METRIC.entropy_collapse}) has stayed below ${pct(FALLING_SHARE)} of its first steps' level (${mean(s.entropyBase).toFixed(3)}) for ${s.entropyLow} steps: it repeats itself (echo trap) and explores nothing new. ${change([fix.entropy, fix.kl, fix.lowerLr, fix.starpoS])}`,
    );
    return raised;
  }

  /** After a validation, with its success rate (`val/success`). */
  onValidation(step: number, success: number): RunWarning[] {
    const s = this.state;
    s.lowVal = success < this.c.earlyStopping.lowValSuccess ? s.lowVal + 1 : 0;
    const was = s.active.includes('low_validation_success');
    if (s.lowVal >= LOW_VALIDATIONS && !was) {
      s.active = [...s.active, 'low_validation_success'];
      return [
        {
          code: 'low_validation_success',
          step,
          message: `Validation success (${METRIC.low_validation_success}) was ${pct(success)} at ${s.lowVal} validations in a row (the third early-stopping rule stops the run after ${this.c.earlyStopping.lowValPatience}). Likely cause: a base that cannot play this environment yet, or a policy that collapsed. Change: ${this.c.model.base.startsWith('starpo-tiny/') ? 'start from a pretrained base (model.base), or ' : ''}check the warnings above and the trajectories.`,
        },
      ];
    }
    if (s.lowVal === 0 && was) s.active = s.active.filter((x) => x !== 'low_validation_success');
    return [];
  }
}

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}
