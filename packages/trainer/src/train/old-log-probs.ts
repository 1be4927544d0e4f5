import type { Qwen2Model } from '../model/qwen2.js';
import type { ComputePool } from '../parallel/pool.js';
import { trimToCredit } from './actor-rows.js';
import { joinRows, scoreSamples, segmentRows, type Sample } from './batch.js';

export interface ScoreSettings {
  padId: number;
  maxTokens: number;
  temperature: number;
}

/**
 * The policy's log-probs on `samples` before the update moves it (the PPO ratio's denominator),
 * written into each sample's `oldLogProbs`. With `trim`, each segment is scored only up to its last
 * credited token and a segment without credit not at all: the update reads nothing past that
 * (`trimToCredit`), and in a causal model the positions before it do not depend on the tail.
 * Unscored positions hold 0. Returns the entropies at the scored trained positions.
 */
export async function scoreOldLogProbs(
  policy: Qwen2Model,
  samples: Sample[],
  trim: boolean,
  s: ScoreSettings,
  pool: ComputePool | null,
): Promise<number[]> {
  const segments = segmentRows(samples);
  const wanted = segments.map((r) => (trim ? trimToCredit(r) : r));
  const rows = wanted.flatMap((r) => (r ? [{ ids: r.ids, mask: r.mask }] : []));
  const score = (xs: { ids: number[]; mask?: number[] }[]) => scoreSamples(policy, xs, s.padId, s.maxTokens, s.temperature);
  const scored = pool ? await pool.score(policy, rows, s.padId, s.maxTokens, s.temperature, score) : await score(rows);
  let k = 0;
  const entropy: number[] = [];
  const full = segments.map((seg, i) => {
    if (!wanted[i]) return toLength(seg.mask.length, []);
    const [lp, ent, mask] = [scored.logProbs[k]!, scored.entropy[k]!, rows[k]!.mask];
    k++;
    for (let t = 0; t < ent.length; t++) if (mask[t]) entropy.push(ent[t]!);
    return toLength(seg.mask.length, lp);
  });
  placeOldLogProbs(samples, full);
  return entropy;
}

/** A trimmed row's values at its segment's full length `n`: 0 past what was scored. */
export function toLength(n: number, values: readonly number[]): number[] {
  const out = new Array<number>(n).fill(0);
  for (let t = 0; t < values.length; t++) out[t] = values[t]!;
  return out;
}

/** Writes old log-probs (one full-length array per segment row of `samples`) into the samples. */
export function placeOldLogProbs(samples: Sample[], rows: number[][]): void {
  joinRows(samples, rows).forEach((lp, i) => (samples[i]!.oldLogProbs = lp));
}
