import type { RunConfig } from '@starpo/contracts';
import {
  biLevelGae,
  discountedReturns,
  gae,
  gigpoAdvantages,
  grpoAdvantages,
  maskedWhiten,
  normalizeScores,
  tokenReturns,
} from '../algo/advantages.js';
import type { RolloutTurn } from '../rollout/types.js';
import { NOT_EXECUTED, turnEndPositions, turnOfPosition, type Sample } from './batch.js';

function groupKeys(samples: Sample[], grouping: RunConfig['algorithm']['rewardNormalization']['grouping']): (string | number)[] {
  return samples.map((s) => (grouping === 'batch' ? 0 : grouping === 'inductive' ? s.traj.env : s.traj.group));
}

/**
 * A turn's plan is as good as its worst move: the action count times the lowest action reward, plus the
 * format penalty. With shaping, one bad move makes the whole reply non-positive, so positive-only
 * credit never reinforces the bad tail of a long plan (36% of positive summed turns had one, S9-A).
 */
function weakestCredit(t: RolloutTurn): number {
  const worst = t.actionRewards.length ? Math.min(...t.actionRewards) : 0;
  return t.actionRewards.length * worst + t.penalty;
}

/** Each trained token gets the value of the turn it belongs to. */
function byTurn(s: Sample, perTurn: readonly number[]): number[] {
  const turnOf = turnOfPosition(s.traj);
  return s.mask.map((m, t) => (m && turnOf[t]! >= 0 ? perTurn[turnOf[t]!]! : 0));
}

/**
 * turnCredit=action: an action word (in the plan or the answer, see `actionSlots`) gets the reward of
 * the action executed in its slot, 0 when it names another action or none ran there (invalid, past
 * the cap); the rest of the reply keeps its turn's credit. A good move in a failed turn is then
 * reinforced, and a bad move in a good turn is not.
 */
function creditActions(s: Sample): number[] {
  if (!s.actionSlots) throw new Error("turnCredit=action needs the samples' action slots");
  const turnOf = turnOfPosition(s.traj);
  return s.advantages.map((v, t) => {
    const slot = s.actionSlots![t]!;
    const k = turnOf[t]!;
    if (!s.mask[t] || k < 0 || slot === -1) return v;
    return slot === NOT_EXECUTED ? 0 : (s.traj.turns[k]!.actionRewards[slot] ?? 0);
  });
}

function broadcast(s: Sample, value: number): number[] {
  return s.mask.map((m) => (m ? value : 0));
}

/**
 * Fill `advantages` and `returns` of every sample for the configured estimator. Scores are the
 * trajectory rewards including format penalties (RAGEN adds the penalty before normalisation).
 * `turn_return` (not in RAGEN) gives each turn's tokens its discounted return over turn rewards,
 * Σ_j γ^(j−k) r_j with the high-level γ, and no baseline: with γ = 0 and a potential-shaped reward
 * (Sokoban's `rewardShaping`) a turn's advantage is the progress its own actions made.
 */
export function computeAdvantages(samples: Sample[], c: RunConfig): void {
  const a = c.algorithm;
  const scores = samples.map((s) => s.rewards.reduce((x, y) => x + y, 0));
  switch (a.advEstimator) {
    case 'gae':
      for (const s of samples) {
        const r = gae(s.rewards, s.values!, s.mask, a.gamma, a.lambda);
        s.advantages = r.advantages;
        s.returns = r.returns;
      }
      break;
    case 'bilevel_gae':
      for (const s of samples) {
        const r = biLevelGae(s.values!, s.mask, turnEndPositions(s.traj), s.traj.turnRewards, {
          gamma: a.gamma,
          lambda: a.lambda,
          highGamma: a.highLevelGamma,
        });
        s.advantages = r.advantages;
        s.returns = r.returns;
      }
      break;
    case 'grpo': {
      const adv = grpoAdvantages(
        scores,
        samples.map((s) => s.traj.group),
        { normByStd: a.grpoNormByStd },
      );
      samples.forEach((s, i) => (s.advantages = s.returns = broadcast(s, adv[i]!)));
      break;
    }
    case 'reinforce': {
      const norm = normalizeScores(scores, groupKeys(samples, a.rewardNormalization.grouping), a.rewardNormalization.method);
      samples.forEach((s, i) => {
        const last = s.mask.lastIndexOf(1);
        const rewards = s.mask.map((_, t) => (t === last ? norm[i]! : 0));
        s.advantages = s.returns = tokenReturns(rewards, s.mask, a.gamma);
      });
      break;
    }
    case 'gigpo': {
      const rows = samples.flatMap((s, i) => {
        const stepReturns = discountedReturns(s.traj.turnRewards, a.gigpo.stepGamma);
        return s.traj.turns.map((t, k) => ({
          sample: i,
          turn: k,
          group: s.traj.group,
          trajectory: i,
          anchor: t.observation,
          stepReturn: stepReturns[k]!,
          episodeReward: scores[i]!,
        }));
      });
      const adv = gigpoAdvantages(rows, { stepWeight: a.gigpo.stepWeight, mode: a.gigpo.mode });
      const perTurn = samples.map((s) => new Array<number>(s.traj.turns.length).fill(0));
      rows.forEach((r, j) => (perTurn[r.sample]![r.turn] = adv.total[j]!));
      samples.forEach((s, i) => (s.advantages = s.returns = byTurn(s, perTurn[i]!)));
      break;
    }
    case 'turn_return':
      for (const s of samples) {
        let rewards = a.turnCredit === 'weakest' ? s.traj.turns.map(weakestCredit) : s.traj.turnRewards;
        if (a.groundedCreditOnly)
          rewards = rewards.map((r, k) => ((s.traj.turns[k]!.diagnostics?.contradicted ?? 0) > 0 ? Math.min(r, 0) : r));
        s.advantages = s.returns = byTurn(s, discountedReturns(rewards, a.highLevelGamma));
        if (a.turnCredit === 'action') s.advantages = s.returns = creditActions(s);
      }
      break;
  }
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
  // Not in RAGEN: positive-sample reinforcement at 0 (PSR, Zhu et al. 2025, "The Surprising Effectiveness
  // of Negative Reinforcement…"). Without the negative side, RL kept starpo-tiny's grounding (contradicted
  // claims 16–20% against 28–33%, docs/results/learn-quick-cpu.md). The critic's returns stay as estimated.
  const neg = a.negativeAdvantageScale;
  const actionNeg = a.turnCredit === 'action' && a.actionNegativeScale !== null ? a.actionNegativeScale : neg;
  if (neg !== 1 || actionNeg !== 1)
    for (const s of samples)
      s.advantages = s.advantages.map((v, t) => {
        const scale = s.actionSlots && s.actionSlots[t] !== -1 ? actionNeg : neg;
        return v >= 0 || scale === 1 ? v : scale * v + 0; // + 0 turns −0 into 0
      });
}
