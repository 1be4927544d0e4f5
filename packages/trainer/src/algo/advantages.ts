import type { RunConfig } from '@starpo/contracts';
import { groupBy, maskedWhiten, mean, std } from './stats.js';

type NormalizationMethod = RunConfig['algorithm']['rewardNormalization']['method'];

const EPS = 1e-6;

/**
 * GRPO / Dr.GRPO group-relative advantage of each sample's score.
 * - Groups of one: VERL's convention, mean 0 and std 1, so A = score / (1 + ε) (not zeroed).
 * - All-equal groups give 0. The std is unbiased, as in VERL: for [1, 0, 0, 1] that
 *   gives ±0.866 where the population std would give ±1.
 * - `episodeIds`: when one trajectory spans several samples, each (group, episode) counts once
 *   in the statistics (the paper's per-trajectory statistic, not VA's cross-step default).
 */
export function grpoAdvantages(
  scores: readonly number[],
  groups: readonly (string | number)[],
  opts: { normByStd: boolean; episodeIds?: readonly (string | number)[] },
): number[] {
  const out = new Array<number>(scores.length).fill(0);
  for (const idx of groupBy(groups).values()) {
    let values: number[];
    if (opts.episodeIds) {
      const seen = new Map<string | number, number>();
      for (const i of idx) if (!seen.has(opts.episodeIds[i]!)) seen.set(opts.episodeIds[i]!, scores[i]!);
      values = [...seen.values()];
    } else {
      values = idx.map((i) => scores[i]!);
    }
    const m = values.length === 1 ? 0 : mean(values);
    const s = values.length === 1 ? 1 : std(values);
    for (const i of idx) out[i] = opts.normByStd ? (scores[i]! - m) / (s + EPS) : scores[i]! - m;
  }
  return out;
}

/**
 * RAGEN/ROLL reward normalisation of response-level scores per group. `mean`: x − μ (a singleton
 * becomes 0); `mean_std`: (x − μ)/(σ + 1e-6), all zeros when n = 1 or σ ≤ 1e-6; `asym_clip`:
 * mean_std clamped to [−1, 3].
 */
export function normalizeScores(scores: readonly number[], groups: readonly (string | number)[], method: NormalizationMethod): number[] {
  if (method === 'identity') return [...scores];
  const out = new Array<number>(scores.length).fill(0);
  for (const idx of groupBy(groups).values()) {
    const values = idx.map((i) => scores[i]!);
    const m = mean(values);
    const s = std(values);
    for (const i of idx) {
      if (method === 'mean') out[i] = scores[i]! - m;
      else {
        const z = values.length > 1 && s > EPS ? (scores[i]! - m) / (s + EPS) : 0;
        out[i] = method === 'asym_clip' ? Math.min(3, Math.max(-1, z)) : z;
      }
    }
  }
  return out;
}

/**
 * GAE over one token sequence, mask-aware (VERL HEAD): at masked positions (observation tokens
 * between turns) the next value and the running advantage are carried through unchanged, so
 * they never enter δ. Returns = advantages + values.
 */
export function gae(
  rewards: readonly number[],
  values: readonly number[],
  mask: readonly number[],
  gamma: number,
  lambda: number,
): { advantages: number[]; returns: number[] } {
  const n = rewards.length;
  const advantages = new Array<number>(n).fill(0);
  let nextValue = 0;
  let lastGae = 0;
  for (let t = n - 1; t >= 0; t--) {
    if (!mask[t]) {
      advantages[t] = lastGae;
      continue;
    }
    const delta = rewards[t]! + gamma * nextValue - values[t]!;
    lastGae = delta + gamma * lambda * lastGae;
    advantages[t] = lastGae;
    nextValue = values[t]!;
  }
  return { advantages, returns: advantages.map((a, t) => a + values[t]!) };
}

/** R_t = Σ_k γ^k r_{t+k}, backwards over one trajectory's steps (GiGPO's step return). */
export function discountedReturns(rewards: readonly number[], gamma: number): number[] {
  const out = new Array<number>(rewards.length).fill(0);
  let run = 0;
  for (let t = rewards.length - 1; t >= 0; t--) out[t] = run = rewards[t]! + gamma * run;
  return out;
}

/** ROLL's token-level returns G_t = r_t + γ·G_{t+1} over the masked positions (γ = 1: the same value on every token). */
export function tokenReturns(rewards: readonly number[], mask: readonly number[], gamma: number): number[] {
  const out = new Array<number>(rewards.length).fill(0);
  let run = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    if (!mask[t]) continue;
    run = rewards[t]! + gamma * run;
    out[t] = run;
  }
  return out;
}

/**
 * Bi-level GAE (RAGEN): (1) turn-level GAE over the turn-end tokens with the high-level γ and λ,
 * bootstrapping from the value at the next turn's end; (2) the resulting return at each turn end
 * replaces the reward there; (3) token-level GAE inside each turn with γ, λ, restarting at each
 * turn end. `turnEnds` are token indices of each turn's last trained token; `turnRewards` the
 * reward of each turn.
 */
export function biLevelGae(
  values: readonly number[],
  mask: readonly number[],
  turnEnds: readonly number[],
  turnRewards: readonly number[],
  o: { gamma: number; lambda: number; highGamma: number },
): { advantages: number[]; returns: number[] } {
  const k = turnEnds.length;
  const turnReturns = new Array<number>(k).fill(0);
  let next = 0;
  let lastGae = 0;
  for (let j = k - 1; j >= 0; j--) {
    const v = values[turnEnds[j]!]!;
    const delta = turnRewards[j]! + o.highGamma * next - v;
    lastGae = delta + o.highGamma * o.lambda * lastGae;
    turnReturns[j] = lastGae + v;
    next = v;
  }
  const n = values.length;
  const advantages = new Array<number>(n).fill(0);
  const returns = new Array<number>(n).fill(0);
  let start = 0;
  for (let j = 0; j < k; j++) {
    const end = turnEnds[j]!;
    let nv = 0;
    let run = 0;
    for (let t = end; t >= start; t--) {
      if (!mask[t]) {
        advantages[t] = run;
        continue;
      }
      const reward = t === end ? turnReturns[j]! : 0;
      // at the turn end the bootstrap is the turn-level return itself (no next value inside the turn)
      const delta = t === end ? reward - values[t]! : reward + o.gamma * nv - values[t]!;
      run = delta + o.gamma * o.lambda * run;
      advantages[t] = run;
      returns[t] = run + values[t]!;
      nv = values[t]!;
    }
    start = end + 1;
  }
  return { advantages, returns };
}

export interface GigpoStepRow {
  /** Initial-state group (GRPO's uid). */
  group: string | number;
  trajectory: string | number;
  /** Exact observation text: the anchor state. */
  anchor: string;
  /** Discounted step return R_t. */
  stepReturn: number;
  /** Episode reward of the row's trajectory. */
  episodeReward: number;
}

/**
 * GiGPO: A = A^E + ω·A^S. Episode level: per-trajectory statistics within the group (paper Eq. 3;
 * VA's default counts every step row, we count each trajectory once). Step level: rows grouped by
 * exact anchor observation inside their group; a singleton anchor group gives 0. `mean_norm`
 * subtracts the mean; `mean_std_norm` also divides by the unbiased std (+1e-6).
 */
export function gigpoAdvantages(
  rows: readonly GigpoStepRow[],
  o: { stepWeight: number; mode: 'mean_norm' | 'mean_std_norm'; episodeCrossSteps?: boolean },
): { episode: number[]; step: number[]; total: number[] } {
  const byStd = o.mode === 'mean_std_norm';
  const episode = grpoAdvantages(
    rows.map((r) => r.episodeReward),
    rows.map((r) => r.group),
    { normByStd: byStd, episodeIds: o.episodeCrossSteps ? undefined : rows.map((r) => `${r.group}\u0000${r.trajectory}`) },
  );
  const step = new Array<number>(rows.length).fill(0);
  for (const idx of groupBy(rows.map((r) => `${r.group}\u0000${r.anchor}`)).values()) {
    if (idx.length === 1) continue;
    const values = idx.map((i) => rows[i]!.stepReturn);
    const m = mean(values);
    const s = std(values);
    for (const i of idx) step[i] = byStd ? (rows[i]!.stepReturn - m) / (s + EPS) : rows[i]!.stepReturn - m;
  }
  return { episode, step, total: episode.map((a, i) => a + o.stepWeight * step[i]!) };
}

export { maskedWhiten };
