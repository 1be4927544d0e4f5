import type { RunConfig } from '@starpo/contracts';
import { maskedWhiten } from '../algo/advantages.js';
import { ESTIMATORS, type EstimatorSample } from '../algo/estimators.js';
import type { RolloutTurn } from '../rollout/types.js';
import { turnEndPositions, turnOfPosition, type Sample } from './batch.js';

type ReasoningBonus = RunConfig['algorithm']['reasoningBonus'];

/**
 * A turn's reasoning bonus (algorithm.reasoningBonus): the rollout's own reasoning checks as a reward.
 * Grounded needs at least one verified claim, so a think text that claims nothing earns nothing.
 */
export function turnReasoningBonus(turn: RolloutTurn, b: ReasoningBonus): number {
  const d = turn.diagnostics;
  if (!d) return 0;
  return (d.checkable > 0 && d.contradicted === 0 ? b.grounded : 0) + (d.thinkAnswer === 'consistent' ? b.consistent : 0);
}

/** Each turn's bonus, or null when the run gives none. */
export function reasoningBonuses(s: Sample, b: ReasoningBonus): number[] | null {
  return b.grounded > 0 || b.consistent > 0 ? s.traj.turns.map((t) => turnReasoningBonus(t, b)) : null;
}

/** Σ of the KL-in-reward terms over each turn's tokens (zeros without a KL in the reward). */
function turnKl(s: Sample, turnOf: readonly number[]): number[] {
  const out = new Array<number>(s.traj.turns.length).fill(0);
  s.klRewards?.forEach((v, t) => {
    if (turnOf[t]! >= 0) out[turnOf[t]!]! += v;
  });
  return out;
}

/**
 * What the estimators see of a sample (algo/estimators.ts); the per-turn views are built when first
 * read. A KL in the reward reaches every estimator: token rewards carry it per token, turn rewards and
 * turns as each turn's sum.
 */
function estimatorSample(s: Sample, perTurnBonus: number[] | null): EstimatorSample {
  const t = s.traj;
  const once = <T>(make: () => T) => {
    let v: T | undefined;
    return () => (v ??= make());
  };
  const turnEnds = once(() => turnEndPositions(t));
  const turnOf = once(() => turnOfPosition(t));
  const kl = once(() => turnKl(s, turnOf()));
  const turnRewards = once(() =>
    s.klRewards || perTurnBonus ? t.turnRewards.map((r, k) => r + (s.klRewards ? kl()[k]! : 0) + (perTurnBonus?.[k] ?? 0)) : t.turnRewards,
  );
  const turns = once(() =>
    t.turns.map((x, k) => ({
      actionRewards: x.actionRewards,
      penalty: x.penalty,
      contradicted: (x.diagnostics?.contradicted ?? 0) > 0,
      mismatched: x.diagnostics?.thinkAnswer === 'mismatch',
      observation: x.observation,
      kl: kl()[k]!,
    })),
  );
  const kr = s.klRewards;
  // the bonus joins the trajectory reward where the environment's reward sits: on the last trained position
  const last = perTurnBonus ? s.mask.lastIndexOf(1) : -1;
  const bonusTotal = perTurnBonus ? perTurnBonus.reduce((a, b) => a + b, 0) : 0;
  return {
    rewards: kr || bonusTotal ? s.rewards.map((r, i) => r + (kr ? kr[i]! : 0) + (i === last ? bonusTotal : 0)) : s.rewards,
    mask: s.mask,
    values: s.values,
    group: t.group,
    env: t.env,
    get turnRewards() {
      return turnRewards();
    },
    get turnEnds() {
      return turnEnds();
    },
    get turnOf() {
      return turnOf();
    },
    get turns() {
      return turns();
    },
    actionSlots: s.actionSlots ?? null,
  };
}

/**
 * Fill `advantages` and `returns` of every sample with the configured estimator (ESTIMATORS), then
 * whiten, clip and scale the negative side as configured. Scores are the trajectory rewards including
 * format penalties (RAGEN adds the penalty before normalisation). Returns the mean reasoning bonus a
 * trajectory earned, or null when the run gives none.
 */
export function computeAdvantages(samples: Sample[], c: RunConfig): number | null {
  const a = c.algorithm;
  const bonuses = samples.map((s) => reasoningBonuses(s, a.reasoningBonus));
  const est = ESTIMATORS[a.advEstimator](
    samples.map((s, i) => estimatorSample(s, bonuses[i]!)),
    a,
  );
  samples.forEach((s, i) => {
    s.advantages = est.advantages[i]!;
    s.returns = est.returns[i]!;
  });
  if (a.whitenAdvantages) {
    const white = maskedWhiten(
      samples.map((s) => s.advantages),
      samples.map((s) => s.mask),
    );
    samples.forEach((s, i) => (s.advantages = white[i]!));
  }
  if (a.advantageClip !== null) {
    const clip = a.advantageClip;
    for (const s of samples) s.advantages = s.advantages.map((v) => Math.max(-clip, Math.min(clip, v)));
  }
  // Not in RAGEN: a scale below 1 shrinks the negative side (0 is positive-sample reinforcement, PSR, Zhu et al.
  // 2025); why quick-cpu uses 0: docs/results/learn-quick-cpu.md. The critic's returns stay as estimated.
  const neg = a.negativeAdvantageScale;
  const actionNeg = a.turnCredit === 'action' && a.actionNegativeScale !== null ? a.actionNegativeScale : neg;
  if (neg !== 1 || actionNeg !== 1)
    for (const s of samples)
      s.advantages = s.advantages.map((v, t) => {
        const scale = s.actionSlots && s.actionSlots[t] !== -1 ? actionNeg : neg;
        return v >= 0 || scale === 1 ? v : scale * v + 0; // + 0 turns −0 into 0
      });
  return bonuses[0] ? bonuses.reduce((n, b) => n + b!.reduce((x, y) => x + y, 0), 0) / bonuses.length : null;
}
