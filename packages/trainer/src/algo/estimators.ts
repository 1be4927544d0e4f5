import type { RunConfig } from '@starpo/contracts';
import {
  biLevelGae,
  discountedReturns,
  gae,
  gigpoAdvantages,
  grpoAdvantages,
  normalizeScores,
  tokenReturns,
  type GigpoStepRow,
} from './advantages.js';

/** The advantage estimators a run config can name (`algorithm.advEstimator`). */
export type Estimator = RunConfig['algorithm']['advEstimator'];
export type AlgorithmConfig = RunConfig['algorithm'];

/** An action slot's mark for an action word that names another action than the one executed in its slot. */
export const NOT_EXECUTED = -2;

/** What an estimator sees of one turn of a trajectory. */
export interface EstimatorTurn {
  /** The reward of each executed action, in order. */
  actionRewards: readonly number[];
  /** The turn's format penalty (0 or negative). */
  penalty: number;
  /** The think text made a claim the state contradicts (the reasoning checks). */
  contradicted: boolean;
  /** The answer departs from the move the think text decided on (the reasoning checks). */
  mismatched: boolean;
  /** The observation the turn answered: GiGPO's anchor state. */
  observation: string;
  /** The turn's share of a KL-in-reward penalty (Σ −coef·KL over its tokens; 0 without one). */
  kl?: number;
}

/**
 * One trajectory as the estimators see it, in target space (index t is the prediction of token t + 1).
 * Token arrays have one entry per target position.
 */
export interface EstimatorSample {
  /** Token rewards: the trajectory reward on the last trained position, plus any KL-in-reward term per token. */
  rewards: readonly number[];
  /** 1 on trained (reply) positions, 0 on prompt and observation tokens. */
  mask: readonly number[];
  /** Critic values (gae and bilevel_gae only). */
  values: readonly number[] | null;
  /** Initial-state group (the same seed). */
  group: number;
  env: string;
  /** Reward of each turn (its actions' rewards plus its penalty and its KL share). */
  turnRewards: readonly number[];
  /** Position of each turn's last trained token. */
  turnEnds: readonly number[];
  /** Turn of each position (−1 outside replies). */
  turnOf: readonly number[];
  turns: readonly EstimatorTurn[];
  /** Per position: the slot of the executed action an action word names, NOT_EXECUTED, or −1 (turnCredit=action). */
  actionSlots: readonly number[] | null;
}

export interface Estimate {
  advantages: number[][];
  returns: number[][];
}

export type EstimatorFn = (samples: readonly EstimatorSample[], a: AlgorithmConfig) => Estimate;

/** The trajectory score S_i = Σ_t r_t (reward plus format penalties, as RAGEN adds the penalty before normalising). */
const score = (s: EstimatorSample) => s.rewards.reduce((x, y) => x + y, 0);

/** The same value on every trained token, 0 elsewhere. */
const broadcast = (s: EstimatorSample, value: number) => s.mask.map((m) => (m ? value : 0));

/** Each trained token gets the value of the turn it belongs to; tokens outside a reply get 0. */
function byTurn(s: EstimatorSample, perTurn: readonly number[]): number[] {
  return s.mask.map((m, t) => (m && s.turnOf[t]! >= 0 ? perTurn[s.turnOf[t]!]! : 0));
}

/** Advantages that are also the returns (estimators without a critic). */
const same = (advantages: number[][]): Estimate => ({ advantages, returns: advantages });

/**
 * PPO's GAE per trajectory (mask-aware, see `gae`): δ_t = r_t + γ·V_{t+1} − V_t,
 * A_t = δ_t + γλ·A_{t+1}, R_t = A_t + V_t.
 */
export const gaeEstimator: EstimatorFn = (samples, a) => {
  const r = samples.map((s) => gae(s.rewards, s.values!, s.mask, a.gamma, a.lambda));
  return { advantages: r.map((x) => x.advantages), returns: r.map((x) => x.returns) };
};

/**
 * RAGEN's bi-level GAE (see `biLevelGae`): turn-level GAE over the turn ends with the high-level γ,
 * then token-level GAE inside each turn towards that turn's return.
 */
export const bilevelGaeEstimator: EstimatorFn = (samples, a) => {
  const r = samples.map((s) =>
    biLevelGae(s.values!, s.mask, s.turnEnds, s.turnRewards, { gamma: a.gamma, lambda: a.lambda, highGamma: a.highLevelGamma }),
  );
  return { advantages: r.map((x) => x.advantages), returns: r.map((x) => x.returns) };
};

/**
 * GRPO: A_i = (S_i − mean_g S) / (std_g S + ε) over the trajectory's group g (Dr.GRPO without the
 * division when grpoNormByStd is false), on every trained token.
 */
export const grpoEstimator: EstimatorFn = (samples, a) => {
  const adv = grpoAdvantages(
    samples.map(score),
    samples.map((s) => s.group),
    { normByStd: a.grpoNormByStd },
  );
  return same(samples.map((s, i) => broadcast(s, adv[i]!)));
};

/**
 * REINFORCE (ROLL): the score normalised within its rewardNormalization group (`normalizeScores`) is
 * the reward of the last trained token, and G_t = r_t + γ·G_{t+1} over the trained tokens.
 */
export const reinforceEstimator: EstimatorFn = (samples, a) => {
  const { grouping, method } = a.rewardNormalization;
  const keys = samples.map((s) => (grouping === 'batch' ? 0 : grouping === 'inductive' ? s.env : s.group));
  const norm = normalizeScores(samples.map(score), keys, method);
  return same(
    samples.map((s, i) => {
      const last = s.mask.lastIndexOf(1);
      return tokenReturns(
        s.mask.map((_, t) => (t === last ? norm[i]! : 0)),
        s.mask,
        a.gamma,
      );
    }),
  );
};

/**
 * GiGPO: A = A^E + ω·A^S per turn (see `gigpoAdvantages`), A^E from the trajectory scores within the
 * group, A^S from the discounted step returns R_k = Σ_j γ_step^(j−k) r_j among turns of the group that
 * answered the same observation; each token gets its turn's A.
 */
export const gigpoEstimator: EstimatorFn = (samples, a) => {
  const scores = samples.map(score);
  const rows: (GigpoStepRow & { sample: number; turn: number })[] = samples.flatMap((s, i) => {
    const stepReturns = discountedReturns(s.turnRewards, a.gigpo.stepGamma);
    return s.turns.map((t, k) => ({
      sample: i,
      turn: k,
      group: s.group,
      trajectory: i,
      anchor: t.observation,
      stepReturn: stepReturns[k]!,
      episodeReward: scores[i]!,
    }));
  });
  const adv = gigpoAdvantages(rows, { stepWeight: a.gigpo.stepWeight, mode: a.gigpo.mode });
  const perTurn = samples.map((s) => new Array<number>(s.turns.length).fill(0));
  rows.forEach((r, j) => (perTurn[r.sample]![r.turn] = adv.total[j]!));
  return same(samples.map((s, i) => byTurn(s, perTurn[i]!)));
};

/**
 * weakest credit: a turn's plan is as good as its worst move, c_k = n_k · min_j a_kj + penalty_k (+ its KL share). With
 * shaping, one bad move makes the whole reply non-positive, so positive-only credit never reinforces
 * the bad tail of a long plan.
 */
export function weakestCredit(t: EstimatorTurn): number {
  const worst = t.actionRewards.length ? Math.min(...t.actionRewards) : 0;
  return t.actionRewards.length * worst + t.penalty + (t.kl ?? 0);
}

/**
 * action credit: an action word (in the plan or the answer) gets the reward of the action executed in
 * its slot, 0 when it names another action or none ran there (invalid, past the cap), plus its turn's
 * KL share; every other
 * token keeps `perToken`. A good move in a failed turn is then reinforced, and a bad move in a good
 * turn is not.
 */
export function creditActions(s: EstimatorSample, perToken: readonly number[]): number[] {
  if (!s.actionSlots) throw new Error("turnCredit=action needs the samples' action slots");
  const slots = s.actionSlots;
  return perToken.map((v, t) => {
    const slot = slots[t]!;
    const k = s.turnOf[t]!;
    if (!s.mask[t] || k < 0 || slot === -1) return v;
    const turn = s.turns[k]!;
    return (slot === NOT_EXECUTED ? 0 : (turn.actionRewards[slot] ?? 0)) + (turn.kl ?? 0);
  });
}

/**
 * turn_return (not in RAGEN): each turn's tokens get the discounted return over turn credits,
 * A_k = Σ_{j≥k} γ_high^(j−k) c_j, with no baseline. The credit c_k is the turn reward (turnCredit
 * sum or action) or `weakestCredit`; with groundedCreditOnly a turn whose think text is contradicted
 * keeps at most 0 (min(c_k, 0)). turnCredit=action then gives action words their own move's reward
 * (`creditActions`). With consistentCreditOnly every token of a turn whose answer departs from its
 * think text's decision keeps at most 0, action words included: a good move is then paid only when the
 * reasoning chose it. With γ_high = 0 and a potential-shaped reward a turn's advantage is the progress
 * its own actions made.
 */
export const turnReturnEstimator: EstimatorFn = (samples, a) =>
  same(
    samples.map((s) => {
      let credit = a.turnCredit === 'weakest' ? s.turns.map(weakestCredit) : [...s.turnRewards];
      if (a.groundedCreditOnly) credit = credit.map((r, k) => (s.turns[k]!.contradicted ? Math.min(r, 0) : r));
      const perToken = byTurn(s, discountedReturns(credit, a.highLevelGamma));
      const credited = a.turnCredit === 'action' ? creditActions(s, perToken) : perToken;
      if (!a.consistentCreditOnly) return credited;
      return credited.map((v, t) => {
        const k = s.turnOf[t]!;
        return k >= 0 && s.turns[k]!.mismatched ? Math.min(v, 0) : v;
      });
    }),
  );

/** Every estimator a run config can name; the type makes a missing one a compile error. */
export const ESTIMATORS: Record<Estimator, EstimatorFn> = {
  gae: gaeEstimator,
  bilevel_gae: bilevelGaeEstimator,
  grpo: grpoEstimator,
  reinforce: reinforceEstimator,
  gigpo: gigpoEstimator,
  turn_return: turnReturnEstimator,
};
