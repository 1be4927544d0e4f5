import type { Rng } from '@starpo/envs';
import { mean, std } from './stats.js';

export type FilterMetric = 'std' | 'std_rev' | 'mean';

export interface FilterResult {
  /** Kept group indices, best first. */
  kept: number[];
  /** Per-group statistic used for ranking. */
  groupStd: number[];
  groupMean: number[];
  keptRatio: number;
  zeroStdGroups: number;
}

/**
 * StarPO-S uncertainty filter over initial-state groups (RAGEN v0423 `_filter_rollout`): rank
 * groups by in-group reward std (`std` keeps the highest, `std_rev` the lowest) or by mean reward,
 * keep `int(ratio · groups)` of them (at least one unless everything was dropped). With
 * `includeZero: false`, zero-variance groups are removed before selection (HEAD). Ties keep the
 * lower group index first.
 */
export function filterGroups(
  groupRewards: readonly (readonly number[])[],
  o: { metric: FilterMetric; ratio: number; includeZero: boolean },
): FilterResult {
  const groupStd = groupRewards.map((g) => std(g));
  const groupMean = groupRewards.map((g) => mean(g));
  const zeroStdGroups = groupStd.filter((s) => s <= 1e-10).length;
  let candidates = groupRewards.map((_, i) => i);
  if (!o.includeZero) candidates = candidates.filter((i) => groupStd[i]! > 1e-10);
  const key = (i: number) => (o.metric === 'std' ? groupStd[i]! : o.metric === 'std_rev' ? -groupStd[i]! : groupMean[i]!);
  candidates.sort((a, b) => key(b) - key(a) || a - b);
  const k = o.ratio >= 1 ? candidates.length : Math.min(candidates.length, Math.max(1, Math.floor(o.ratio * groupRewards.length)));
  const kept = candidates.slice(0, k);
  return { kept, groupStd, groupMean, keptRatio: kept.length / Math.max(1, groupRewards.length), zeroStdGroups };
}

/**
 * Make a batch divisible by `multiple` (ROLL/RAGEN adjust_batch): `copy` duplicates randomly
 * chosen samples up to the next multiple, `delete` drops random samples down to the previous one
 * (never below one multiple if there is at least that many).
 */
export function adjustBatch(indices: readonly number[], multiple: number, mode: 'copy' | 'delete', rng: Rng): number[] {
  const n = indices.length;
  if (n === 0 || n % multiple === 0) return [...indices];
  if (mode === 'delete' && n > multiple) {
    const keep = n - (n % multiple);
    return rng
      .shuffle(indices)
      .slice(0, keep)
      .sort((a, b) => a - b);
  }
  const out = [...indices];
  const need = multiple - (n % multiple);
  for (let i = 0; i < need; i++) out.push(indices[rng.int(0, n - 1)]!);
  return out;
}
