import type { TextTokenizer } from '../tokenizer/types.js';
import type { Trajectory } from './types.js';

/** [start, end) token ranges of a trajectory's segments, each a sequence of its own. */
export function segmentRanges(t: Pick<Trajectory, 'ids' | 'segmentStarts'>): [number, number][] {
  return t.segmentStarts.map((a, j) => [a, t.segmentStarts[j + 1] ?? t.ids.length]);
}

export interface TrainingTokens {
  ids: number[];
  lossMask: number[];
  segmentStarts: number[];
  turnSpans: [number, number][];
}

/**
 * The training tokens of a dialogue from the prompts its turns were sampled from: each reply (trained,
 * with its end-of-turn token) follows its own prompt token for token, so re-scoring a reply sees what
 * the sampler saw. A prompt that extends the sequence so far (the usual case) continues it; one that
 * does not (its oldest turns were cut to fit the context, or last_k) starts a new segment.
 */
export function trainingTokens(tokenizer: TextTokenizer, prompts: number[][], replies: string[], prefill: string): TrainingTokens {
  const ids: number[] = [];
  const lossMask: number[] = [];
  const segmentStarts: number[] = [];
  const turnSpans: [number, number][] = [];
  let start = 0;
  prompts.forEach((prompt, k) => {
    const sequence = ids.length - start;
    const continues =
      segmentStarts.length > 0 && prompt.length > sequence && prompt.every((id, i) => i >= sequence || ids[start + i] === id);
    if (!continues) segmentStarts.push((start = ids.length));
    for (const id of prompt.slice(continues ? sequence : 0)) {
      ids.push(id);
      lossMask.push(0);
    }
    const reply = replies[k]!;
    const from = ids.length;
    for (const id of [...tokenizer.encode(reply.startsWith(prefill) ? reply.slice(prefill.length) : reply), tokenizer.eosId]) {
      ids.push(id);
      lossMask.push(1);
    }
    turnSpans.push([from, ids.length]);
  });
  return { ids, lossMask, segmentStarts, turnSpans };
}
