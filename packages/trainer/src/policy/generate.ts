import * as tf from '@tensorflow/tfjs';
import type { Rng } from '@starpo/envs';
import { disposeCache, type KvCache, type Qwen2Model } from '../model/qwen2.js';
import type { TextTokenizer } from '../tokenizer/types.js';
import { sampleToken } from './sampling.js';

export interface GenerateOptions {
  maxNewTokens: number;
  temperature: number;
  topP?: number;
  /** Stop once the generated text ends with one of these (e.g. `</answer>`). */
  stopStrings?: string[];
}

export interface Generation {
  text: string;
  ids: number[];
  logProbs: number[];
  entropies: number[];
  stopReason: 'stop_string' | 'eos' | 'length';
}

/** Run fn in a tidy scope; whatever it returns must already be tf.keep()'d. */
export function scoped<T>(fn: () => T): T {
  let result!: T;
  tf.tidy(() => {
    result = fn();
  });
  return result;
}

/** Left-pad token sequences into [batch, maxLen] ids and mask tensors. */
export function leftPad(seqs: number[][], padId: number): { ids: tf.Tensor2D; mask: tf.Tensor2D } {
  const len = Math.max(...seqs.map((s) => s.length));
  const ids = new Int32Array(seqs.length * len).fill(padId);
  const mask = new Int32Array(seqs.length * len);
  seqs.forEach((s, b) => {
    const off = b * len + (len - s.length);
    ids.set(s, off);
    mask.fill(1, off, off + s.length);
  });
  return { ids: tf.tensor2d(ids, [seqs.length, len], 'int32'), mask: tf.tensor2d(mask, [seqs.length, len], 'int32') };
}

/**
 * Batched sampling with a KV cache: one prefill over the left-padded prompts, then one token per
 * step for every unfinished row. Deterministic for a given rng state on a given backend.
 */
export async function generate(
  model: Qwen2Model,
  tokenizer: TextTokenizer,
  prompts: number[][],
  opts: GenerateOptions,
  rng: Rng,
): Promise<Generation[]> {
  const batch = prompts.length;
  const out: Generation[] = prompts.map(() => ({ text: '', ids: [], logProbs: [], entropies: [], stopReason: 'length' }));
  if (batch === 0) return out;
  const active = new Array<boolean>(batch).fill(true);
  const stops = opts.stopStrings ?? [];
  const tailWindow = Math.max(8, ...stops.map((s) => s.length));
  let cache: KvCache | undefined;
  let lastLogits: tf.Tensor2D;
  {
    const { ids, mask } = leftPad(prompts, tokenizer.padId);
    const res = scoped(() => {
      const { hidden, cache: c } = model.hidden(ids, mask, { returnCache: true });
      const last = hidden.slice([0, hidden.shape[1] - 1, 0], [batch, 1, hidden.shape[2]]);
      return { logits: tf.keep(model.logits(last as tf.Tensor3D).squeeze([1]) as tf.Tensor2D), cache: c! };
    });
    cache = res.cache;
    lastLogits = res.logits;
    tf.dispose([ids, mask]);
  }
  try {
    for (let step = 0; step < opts.maxNewTokens && active.some(Boolean); step++) {
      const logits = (await lastLogits.data()) as Float32Array;
      lastLogits.dispose();
      const vocab = logits.length / batch;
      const next = new Int32Array(batch).fill(tokenizer.padId);
      const stepMask = new Int32Array(batch);
      for (let b = 0; b < batch; b++) {
        if (!active[b]) continue;
        const s = sampleToken(logits.subarray(b * vocab, (b + 1) * vocab), opts.temperature, opts.topP ?? 1, rng);
        const g = out[b]!;
        g.ids.push(s.token);
        g.logProbs.push(s.logProb);
        g.entropies.push(s.entropy);
        next[b] = s.token;
        stepMask[b] = 1;
        if (s.token === tokenizer.eosId) {
          g.stopReason = 'eos';
          active[b] = false;
          continue;
        }
        const tail = tokenizer.decode(g.ids.slice(-tailWindow));
        if (stops.some((st) => tail.endsWith(st))) {
          g.stopReason = 'stop_string';
          active[b] = false;
        }
      }
      if (!active.some(Boolean) || step + 1 >= opts.maxNewTokens) break;
      const prev: KvCache = cache!;
      const res = scoped(() => {
        const ids = tf.tensor2d(next, [batch, 1], 'int32');
        const mask = tf.tensor2d(stepMask, [batch, 1], 'int32');
        const { hidden, cache: c } = model.hidden(ids, mask, { cache: prev, returnCache: true });
        return { logits: tf.keep(model.logits(hidden).squeeze([1]) as tf.Tensor2D), cache: c! };
      });
      disposeCache(prev);
      cache = res.cache;
      lastLogits = res.logits;
    }
  } finally {
    disposeCache(cache);
    if (!lastLogits!.isDisposed) lastLogits!.dispose();
  }
  for (const g of out) {
    const ids = g.stopReason === 'eos' ? g.ids.slice(0, -1) : g.ids;
    g.text = tokenizer.decode(ids, { skipSpecial: false });
  }
  return out;
}
