import * as tf from '@tensorflow/tfjs';
import { NOT_EXECUTED } from '../algo/estimators.js';
import type { Qwen2Model } from '../model/qwen2.js';
import { packSequences, tokenLogProbs } from '../policy/score.js';
import { segmentRanges } from '../rollout/segments.js';
import type { Trajectory } from '../rollout/types.js';
import { yieldToEventLoop } from '../util/yield.js';

/**
 * One training sample in "target space": index t scores token t+1 of the dialogue, so every
 * array has length ids.length − 1 and `mask[t] = lossMask[t + 1]`.
 */
export interface Sample {
  traj: Trajectory;
  ids: number[];
  mask: number[];
  /** Trajectory reward on the last trained position. */
  rewards: number[];
  /** −coef·KL(π_old‖π_ref) per trained position when the KL is in the reward (ppo.kl.in = reward), else null. */
  klRewards: number[] | null;
  oldLogProbs: number[];
  refLogProbs: number[] | null;
  values: number[] | null;
  advantages: number[];
  returns: number[];
  /** Per target position: which of its turn's actions an action word names (−1 elsewhere); for turnCredit=action. */
  actionSlots?: number[];
}

export function toSample(traj: Trajectory): Sample {
  const n = traj.ids.length - 1;
  return {
    traj,
    ids: traj.ids,
    mask: traj.lossMask.slice(1),
    rewards: traj.scores.slice(1),
    klRewards: null,
    oldLogProbs: new Array<number>(n).fill(0),
    refLogProbs: null,
    values: null,
    advantages: new Array<number>(n).fill(0),
    returns: new Array<number>(n).fill(0),
  };
}

const sliceOf = <T extends number[] | null | undefined>(xs: T, a: number, b: number): T => (xs ? xs.slice(a, b) : xs) as T;

/**
 * The model's rows of a batch: each sample's segments as sequences of their own (the sample itself when
 * it has one), with their target-space slices. Segment [a, b) holds target positions a … b − 2; the
 * position between two segments scores nothing (mask 0).
 */
export function segmentRows(samples: Sample[]): Sample[] {
  return samples.flatMap((s) => {
    const starts = s.traj.segmentStarts;
    if (!starts || starts.length <= 1) return [s];
    return segmentRanges(s.traj).map(([a, b]) => ({
      ...s,
      ids: s.ids.slice(a, b),
      mask: s.mask.slice(a, b - 1),
      rewards: s.rewards.slice(a, b - 1),
      klRewards: sliceOf(s.klRewards, a, b - 1),
      oldLogProbs: s.oldLogProbs.slice(a, b - 1),
      refLogProbs: sliceOf(s.refLogProbs, a, b - 1),
      values: sliceOf(s.values, a, b - 1),
      advantages: s.advantages.slice(a, b - 1),
      returns: s.returns.slice(a, b - 1),
      actionSlots: sliceOf(s.actionSlots, a, b - 1),
    }));
  });
}

/** Per-sample target-space arrays from per-row ones (rows in `segmentRows` order); positions between segments get 0. */
export function joinRows(samples: Sample[], rows: number[][]): number[][] {
  let r = 0;
  return samples.map((s) => {
    const starts = s.traj.segmentStarts;
    if (!starts || starts.length <= 1) return rows[r++]!;
    const out = new Array<number>(s.ids.length - 1).fill(0);
    for (const [a] of segmentRanges(s.traj)) {
      const row = rows[r++]!;
      for (let t = 0; t < row.length; t++) out[a + t] = row[t]!;
    }
    return out;
  });
}

/** Token index of each turn's last trained position, in target space. */
export function turnEndPositions(traj: Trajectory): number[] {
  return traj.turnSpans.map(([, end]) => end - 2);
}

/** Which turn each target position belongs to (−1 outside assistant replies). */
export function turnOfPosition(traj: Trajectory): number[] {
  const out = new Array<number>(traj.ids.length - 1).fill(-1);
  traj.turnSpans.forEach(([a, b], k) => {
    for (let i = a; i < b; i++) if (i >= 1) out[i - 1] = k;
  });
  return out;
}

export { NOT_EXECUTED };

/**
 * Mark the action words of each reply (target space; −1 elsewhere), for turnCredit=action. The
 * answer's k-th action word is the k-th move sent to the environment: slot k when that move ran,
 * NOT_EXECUTED when it did not (cut by the cap, or another move ran there). The think text's action
 * words are a plan only when its last ones are exactly the executed moves, in order ("Dragon sounds
 * bold… Phoenix is safe… I choose Phoenix" plans Phoenix once): those get their slots. Every other
 * mention (weighed, rejected, out of order) stays −1 and keeps its turn's credit. Action words are whole
 * tokens spelled as the environment's actions, so "2 left" in a relation claim is not one.
 */
export function actionSlots(traj: Trajectory, decode: (id: number) => string, actions: readonly string[]): number[] {
  const names = new Set(actions);
  const out = new Array<number>(traj.ids.length - 1).fill(-1);
  traj.turnSpans.forEach(([a, b], turn) => {
    const executed = traj.turns[turn]?.executed ?? [];
    const think: { t: number; word: string }[] = [];
    const answer: { t: number; word: string }[] = [];
    let inAnswer = false;
    for (let i = Math.max(a, 1); i < b; i++) {
      const word = decode(traj.ids[i]!).trim();
      if (word === '<answer>') inAnswer = true;
      else if (names.has(word)) (inAnswer ? answer : think).push({ t: i - 1, word });
    }
    answer.forEach(({ t, word }, k) => (out[t] = executed[k] === word ? k : NOT_EXECUTED));
    const plan = executed.length ? think.slice(-executed.length) : [];
    if (plan.length === executed.length && plan.every(({ word }, k) => word === executed[k])) plan.forEach(({ t }, k) => (out[t] = k));
  });
  return out;
}

/** Max attention-score elements (rows × heads × len²) of one forward/backward pass: keeps wasm under its memory limit. */
export const ATTENTION_BUDGET = 12 * 1024 * 1024;

/**
 * Split samples into runs of at most `maxTokens` padded tokens, at most `maxRows` rows, and at
 * most ATTENTION_BUDGET attention scores for `heads` heads. Runs take the samples shortest first,
 * so that each pads little; callers that need the input order map results back through the items.
 */
export function chunkByTokens<T extends { ids: number[] }>(items: T[], maxTokens: number, maxRows = Infinity, heads = 4): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let longest = 0;
  for (const it of [...items].sort((a, b) => a.ids.length - b.ids.length)) {
    const l = Math.max(longest, it.ids.length);
    const rows = cur.length + 1;
    if (cur.length && (rows * l > maxTokens || cur.length >= maxRows || rows * heads * l * l > ATTENTION_BUDGET)) {
      out.push(cur);
      cur = [];
      longest = 0;
    }
    cur.push(it);
    longest = Math.max(longest, it.ids.length);
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Unpack a [rows, len−1] tensor row back to per-sample target-space arrays (undoing left padding). */
export function unpackRows(data: Float32Array, rows: { ids: number[] }[], width: number): number[][] {
  return rows.map((r, i) => {
    const n = r.ids.length - 1;
    const off = width - n;
    return Array.from(data.subarray(i * width + off, i * width + width));
  });
}

/** Rows tagged with their input positions, keeping each one's target-space `mask` where known. */
export const indexed = (samples: { ids: number[]; mask?: number[] }[]) => samples.map((s, at) => ({ ids: s.ids, mask: s.mask, at }));

/** Put a chunk's per-sample results at their samples' input positions. */
export function placeRows(into: number[][], chunk: { at: number }[], rows: number[][]): void {
  chunk.forEach((c, i) => (into[c.at] = rows[i]!));
}

/**
 * Per-position log-probs and entropies of `model` on each sample's dialogue (no gradient). With every
 * sample's target-space `mask`, only its trained positions are scored (the others are 0).
 */
export async function scoreSamples(
  model: Qwen2Model,
  samples: { ids: number[]; mask?: number[] }[],
  padId: number,
  maxTokens: number,
  temperature = 1,
): Promise<{ logProbs: number[][]; entropy: number[][] }> {
  const logProbs: number[][] = [];
  const entropy: number[][] = [];
  for (const chunk of chunkByTokens(indexed(samples), maxTokens, Infinity, model.config.num_attention_heads)) {
    await yieldToEventLoop();
    const masked = chunk.every((s) => s.mask);
    const packed = packSequences(
      chunk.map((s) => ({ ids: s.ids, lossMask: masked ? [0, ...s.mask!] : [] })),
      padId,
    );
    const [lp, ent] = tf.tidy(() => {
      const r = tokenLogProbs(model, packed.ids, packed.mask, { temperature, ...(masked ? { only: packed.scored } : {}) });
      return [r.logProbs, r.entropy!];
    });
    const width = packed.ids.shape[1] - 1;
    placeRows(logProbs, chunk, unpackRows((await lp!.data()) as Float32Array, chunk, width));
    placeRows(entropy, chunk, unpackRows((await ent!.data()) as Float32Array, chunk, width));
    tf.dispose([lp!, ent!, packed.ids, packed.mask, packed.targetMask]);
  }
  return { logProbs, entropy };
}

/** Critic values at each position (no gradient). */
export async function valueSamples(
  critic: Qwen2Model,
  samples: { ids: number[] }[],
  padId: number,
  maxTokens: number,
): Promise<number[][]> {
  const out: number[][] = [];
  for (const chunk of chunkByTokens(indexed(samples), maxTokens, Infinity, critic.config.num_attention_heads)) {
    await yieldToEventLoop();
    const packed = packSequences(
      chunk.map((s) => ({ ids: s.ids, lossMask: [] })),
      padId,
    );
    const v = tf.tidy(() => {
      const all = critic.values(critic.hidden(packed.ids, packed.mask).hidden);
      return all.slice([0, 0], [all.shape[0], all.shape[1] - 1]);
    });
    placeRows(out, chunk, unpackRows((await v.data()) as Float32Array, chunk, packed.ids.shape[1] - 1));
    tf.dispose([v, packed.ids, packed.mask, packed.targetMask]);
  }
  return out;
}

/** Left-pad per-sample target-space arrays into a [rows, width] float tensor. */
export function padRows(rows: number[][], width: number): tf.Tensor2D {
  const data = new Float32Array(rows.length * width);
  rows.forEach((r, i) => data.set(r, i * width + (width - r.length)));
  return tf.tensor2d(data, [rows.length, width]);
}
