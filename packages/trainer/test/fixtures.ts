import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Trajectory } from '../src/rollout/types.js';
import { toSample, type Sample } from '../src/train/batch.js';

/** Reference outputs of Hugging Face transformers' Qwen2 (see its README), kept in the repository. */
export const GOLDEN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'golden/hf-qwen2-tiny');

export interface GoldenReference {
  encodings: { text: string; ids: number[] }[];
  chat: { messages: { role: string; content: string }[]; text: string; ids: number[]; greedy_continuation_ids: number[] };
  input_ids: number[][];
  logits: number[][][];
  target_logprobs: number[][];
  entropy: number[][];
  left_padded: { input_ids: number[][]; attention_mask: number[][]; logits_of_real_tokens: number[][][] };
  bf16_upcast_logits: number[][][];
}

export function loadGolden(): GoldenReference {
  if (!existsSync(GOLDEN_DIR)) throw new Error(`golden fixture missing: ${GOLDEN_DIR}`);
  return JSON.parse(readFileSync(path.join(GOLDEN_DIR, 'qwen2-tiny-reference.json'), 'utf8')) as GoldenReference;
}

export function maxAbsDiff(a: number[] | Float32Array, b: number[]): number {
  let m = 0;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** Four training rows of different lengths with made-up log-probs, advantages, values and returns (ids below 33). */
export function syntheticSamples(): Sample[] {
  return [30, 18, 25, 12].map((n, i) => {
    const s = toSample({
      ids: Array.from({ length: n }, (_, t) => 3 + ((t * 7 + i) % 30)),
      lossMask: Array.from({ length: n }, (_, t) => (t >= 4 ? 1 : 0)),
      scores: new Array(n).fill(0),
    } as unknown as Trajectory);
    s.oldLogProbs = s.mask.map(() => -3);
    s.advantages = s.mask.map((m, t) => (m ? ((t + i) % 3) - 1 : 0));
    s.values = s.mask.map(() => 0.1);
    s.returns = s.mask.map((m, t) => (m ? ((t + i) % 2) - 0.5 : 0));
    return s;
  });
}
