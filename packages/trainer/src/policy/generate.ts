import * as tf from '@tensorflow/tfjs';
import type { Rng } from '@starpo/envs';
import { blasActive, gatherKv } from '../model/blas-kernel.js';
import { disposeCache, withRoom, type KvCache, type Qwen2Model } from '../model/qwen2.js';
import type { TextTokenizer } from '../tokenizer/types.js';
import { sampleToken } from './sampling.js';
import { throwIfStopped } from '../util/stop.js';
import { yieldToEventLoop } from '../util/yield.js';

/** Extra attention span (tokens) a kept cache may cost over a fresh prefill before it is dropped. */
const REUSE_SLACK = 64;

/** Max attention-score elements (rows × heads × len × total) materialised at once during prefill; on wasm, 4M runs prefill 1.7× faster than 16M (bench:rollout). */
const PREFILL_SCORE_BUDGET = 4 * 1024 * 1024;

export interface GenerateOptions {
  maxNewTokens: number;
  temperature: number;
  topP?: number;
  /** Stop once the generated text ends with one of these (e.g. `</answer>`). */
  stopStrings?: string[];
  /** Polled between prefill chunks and tokens: once aborted, generation throws StopRequested. */
  signal?: AbortSignal;
}

export interface Generation {
  text: string;
  ids: number[];
  logProbs: number[];
  entropies: number[];
  stopReason: 'stop_string' | 'eos' | 'length';
}

/** Where a generation's time went: the prompt pass, and the token-by-token loop that sampled `decodeTokens` tokens. */
export interface GenerationTiming {
  prefillS: number;
  decodeS: number;
  decodeTokens: number;
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
 * A KV cache kept from an earlier `generateCached` call, with the real token ids each row holds,
 * so the next turn of a conversation only runs the tokens after the longest common prefix.
 */
export interface PrefixCache {
  cache: KvCache;
  /** Per row, the token ids whose keys and values the cache holds, in order. */
  held: number[][];
}

export function disposePrefix(p: PrefixCache | undefined): void {
  if (p) disposeCache(p.cache);
}

function sliceCache(c: KvCache, r: number, rows: number): KvCache {
  const cut = <T extends tf.Tensor>(t: T) => t.slice([r, ...t.shape.slice(1).map(() => 0)], [rows, ...t.shape.slice(1)]) as T;
  return { keys: c.keys.map(cut), values: c.values.map(cut), mask: cut(c.mask), nextPosition: cut(c.nextPosition) };
}

/** The conversations a batch continues: prompt b continues row `rows[b]` of `prefix`. */
export interface Continuation {
  prefix: PrefixCache;
  rows: number[];
}

/**
 * The rows `from.rows` of the kept cache, each cut to its first `keep[b]` real tokens, compacted
 * and left-padded to the longest of them (stale and padding positions dropped, so attention spans
 * no more than a fresh prefill would); positions continue from there. One gather does the row
 * selection and the compaction; where the native kernels run, it also leaves `room` positions
 * after them, which the prefill and decoding write in place. Undefined when nothing is kept.
 */
async function compactPrefix(from: Continuation, keep: number[], room: number): Promise<KvCache | undefined> {
  const past = from.prefix.cache.mask.shape[1];
  // a cache kept from decoding may hold room after its filled positions
  const capacity = from.prefix.cache.keys[0]!.shape[2];
  const batch = from.rows.length;
  const width = Math.max(...keep);
  if (width === 0) return undefined;
  const mask = (await from.prefix.cache.mask.data()) as Int32Array;
  // rows of the flattened [rows × capacity] positions, −1 where a row is padded
  const flat = new Int32Array(batch * width).fill(-1);
  from.rows.forEach((row, b) => {
    let at = b * width + (width - keep[b]!);
    for (let j = 0; j < past && at < (b + 1) * width; j++) if (mask[row * past + j]) flat[at++] = row * capacity + j;
  });
  return scoped(() => {
    // the native copy where its kernels run, else a gather on axis 0 (on every backend; padding copies position 0)
    const idx = blasActive()
      ? null
      : tf.tensor1d(
          flat.map((f) => Math.max(f, 0)),
          'int32',
        );
    const pick = (t: tf.Tensor4D) => {
      if (!idx) return tf.keep(gatherKv(t, flat, batch, width + room));
      const [all, heads, , dim] = t.shape;
      const rows = t.transpose([0, 2, 1, 3]).reshape([all * capacity, heads * dim]);
      return tf.keep(tf.gather(rows, idx, 0).reshape([batch, width, heads, dim]).transpose([0, 2, 1, 3])) as tf.Tensor4D;
    };
    return {
      keys: from.prefix.cache.keys.map(pick),
      values: from.prefix.cache.values.map(pick),
      mask: tf.keep(
        tf.tensor2d(
          flat.map((f) => (f < 0 ? 0 : 1)),
          [batch, width],
          'int32',
        ),
      ),
      nextPosition: tf.keep(tf.tensor1d(keep, 'int32')),
    };
  });
}

function commonPrefix(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
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
  const { generations, next } = await generateCached(model, tokenizer, prompts, opts, rng);
  disposePrefix(next);
  return generations;
}

/**
 * `generate` that continues conversations held in a kept cache (`from`, which stays the caller's)
 * and returns the cache it ends with. Each row runs only the prompt tokens after the longest common prefix of
 * what the cache holds and its new prompt; the rest of the cache is masked out. Multi-turn rollouts
 * re-send the whole conversation every turn, so this turns quadratic prefill into linear.
 */
export async function generateCached(
  model: Qwen2Model,
  tokenizer: TextTokenizer,
  prompts: number[][],
  opts: GenerateOptions,
  rng: Rng,
  from?: Continuation,
): Promise<{ generations: Generation[]; next: PrefixCache | undefined; timing: GenerationTiming }> {
  const batch = prompts.length;
  const timing: GenerationTiming = { prefillS: 0, decodeS: 0, decodeTokens: 0 };
  const out: Generation[] = prompts.map(() => ({ text: '', ids: [], logProbs: [], entropies: [], stopReason: 'length' }));
  if (batch === 0) return { generations: out, next: undefined, timing };
  if (from && from.rows.length !== batch) throw new Error(`continuing ${from.rows.length} conversations with ${batch} prompts`);
  const active = new Array<boolean>(batch).fill(true);
  const stops = opts.stopStrings ?? [];
  const tailWindow = Math.max(8, ...stops.map((s) => s.length));
  // at least the last prompt token runs, for the logits of the first new token
  let reuse = prompts.map((p, b) => (from ? Math.min(commonPrefix(from.prefix.held[from.rows[b]!]!, p), p.length - 1) : 0));
  // Rows with a long cached part and rows with a long new part (a conversation cut to fit the
  // context) would make the batch span both: longer than a fresh prefill. Then start afresh.
  const freshLen = Math.max(...prompts.map((p) => p.length));
  if (Math.max(...reuse) + Math.max(...prompts.map((p, b) => p.length - reuse[b]!)) > freshLen + REUSE_SLACK) reuse = reuse.map(() => 0);
  const held = prompts.map((p) => [...p]);
  // room for the prompts' new tokens and the reply, written in place after the kept ones
  const room = Math.max(...prompts.map((p, b) => p.length - reuse[b]!)) + opts.maxNewTokens;
  const past = from ? await compactPrefix(from, reuse, room) : undefined;
  let cache: KvCache | undefined;
  let lastLogits: tf.Tensor2D;
  const tPrefill = performance.now();
  {
    // Prefill in row chunks so the attention scores (rows × heads × len × total) stay within a memory budget.
    const { ids, mask } = leftPad(
      prompts.map((p, b) => p.slice(reuse[b])),
      tokenizer.padId,
    );
    const len = ids.shape[1];
    const total = len + (past ? past.mask.shape[1] : 0);
    const rowsPerChunk = Math.max(1, Math.floor(PREFILL_SCORE_BUDGET / (model.config.num_attention_heads * len * total)));
    const parts: { logits: tf.Tensor2D; cache: KvCache }[] = [];
    for (let r = 0; r < batch; r += rowsPerChunk) {
      await yieldToEventLoop();
      if (opts.signal?.aborted) {
        tf.dispose([ids, mask]);
        disposeCache(past);
        for (const p of parts) {
          disposeCache(p.cache);
          p.logits.dispose();
        }
        throwIfStopped(opts.signal);
      }
      const rows = Math.min(rowsPerChunk, batch - r);
      parts.push(
        scoped(() => {
          const pastRows = past ? (rows === batch ? past : sliceCache(past, r, rows)) : undefined;
          // only the last position's logits are read: the last layer runs that query alone
          const { hidden, cache: c } = model.hidden(ids.slice([r, 0], [rows, len]), mask.slice([r, 0], [rows, len]), {
            returnCache: true,
            at: 'last',
            ...(pastRows ? { cache: pastRows } : {}),
          });
          return { logits: tf.keep(model.logits(hidden).squeeze([1]) as tf.Tensor2D), cache: c! };
        }),
      );
    }
    tf.dispose([ids, mask]);
    disposeCache(past);
    if (parts.length === 1) {
      cache = parts[0]!.cache;
      lastLogits = parts[0]!.logits;
    } else {
      const cat = <T extends tf.Tensor>(ts: T[]) => tf.keep(tf.concat(ts, 0)) as T;
      cache = {
        keys: parts[0]!.cache.keys.map((_, i) => cat(parts.map((p) => p.cache.keys[i]!))),
        values: parts[0]!.cache.values.map((_, i) => cat(parts.map((p) => p.cache.values[i]!))),
        mask: cat(parts.map((p) => p.cache.mask)),
        nextPosition: cat(parts.map((p) => p.cache.nextPosition)),
      };
      lastLogits = cat(parts.map((p) => p.logits));
      for (const p of parts) {
        disposeCache(p.cache);
        p.logits.dispose();
      }
    }
  }
  // decoding writes each token's keys and values into this room instead of copying the cache
  cache = withRoom(cache, opts.maxNewTokens);
  const tDecode = performance.now();
  timing.prefillS = (tDecode - tPrefill) / 1000;
  try {
    for (let step = 0; step < opts.maxNewTokens && active.some(Boolean); step++) {
      await yieldToEventLoop();
      throwIfStopped(opts.signal);
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
        timing.decodeTokens++;
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
      for (let b = 0; b < batch; b++) if (stepMask[b]) held[b]!.push(next[b]!);
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
  } catch (e) {
    disposeCache(cache);
    throw e;
  } finally {
    if (!lastLogits!.isDisposed) lastLogits!.dispose();
    timing.decodeS = (performance.now() - tDecode) / 1000;
  }
  for (const g of out) {
    const ids = g.stopReason === 'eos' ? g.ids.slice(0, -1) : g.ids;
    g.text = tokenizer.decode(ids, { skipSpecial: false });
  }
  return { generations: out, next: { cache: cache!, held }, timing };
}
