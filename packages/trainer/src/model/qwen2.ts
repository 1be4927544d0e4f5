import * as tf from '@tensorflow/tfjs';
import { headDim, type Qwen2Config } from './config.js';
import { attention, attentionMask } from './attention.js';
import { blasActive, fusedAttention, writeKvInPlace, type ListedQueries } from './blas-kernel.js';
import { linear } from './matmul.js';
import { nativeRmsNorm, nativeSwiglu } from './native-ops.js';
import { takeRows } from './rows.js';
import type { TensorData } from './safetensors.js';

/**
 * Per-layer keys and values of earlier positions, for incremental decoding: [batch, kvHeads, C, hd],
 * of which the first `past` positions (the mask's width) are filled. C > past only in a cache made by
 * `withRoom`, which the next positions are written into in place.
 */
export interface KvCache {
  keys: tf.Tensor4D[];
  values: tf.Tensor4D[];
  /** 1 for real past tokens, 0 for padding: [batch, past]. */
  mask: tf.Tensor2D;
  /** Next position id per row: [batch]. */
  nextPosition: tf.Tensor1D;
}

export interface ForwardOptions {
  cache?: KvCache;
  /** Return an updated cache (the caller disposes the old one). */
  returnCache?: boolean;
  /**
   * The positions whose hidden states the caller needs, when not all: 'last' (each row's last, as a
   * prefill needs; hidden is [batch, 1, hidden]) or flat indices into [batch·len], ascending (the
   * trained positions; hidden is [1, N, hidden]). Earlier layers run every position, whose keys and
   * values the last layer reads; the last layer's queries, MLP and final norm run on these only.
   */
  at?: 'last' | Int32Array;
}

/** Listed query rows of a pass without a cache: each row's key position and where each sequence's run starts. */
function listedRows(at: Int32Array, batch: number, len: number): { index: tf.Tensor1D; listed: ListedQueries } {
  const pos = new Float32Array(at.length);
  const start = new Float32Array(batch + 1);
  at.forEach((r, n) => {
    pos[n] = r % len;
    start[Math.floor(r / len) + 1]!++;
  });
  for (let b = 0; b < batch; b++) start[b + 1]! += start[b]!;
  return { index: tf.tensor1d(at, 'int32'), listed: { pos: tf.tensor1d(pos), start: tf.tensor1d(start) } };
}

function rmsNorm(x: tf.Tensor, w: tf.Tensor, eps: number): tf.Tensor {
  if (blasActive()) return nativeRmsNorm(x, w, eps);
  const variance = x.square().mean(-1, true);
  return x.mul(variance.add(eps).rsqrt()).mul(w);
}

/**
 * [-x2, x1] over the last axis, as a product with a signed permutation matrix: on wasm a split and
 * concat of q/k cost more than this [hd, hd] plain 2-D product.
 */
function rotateHalf<T extends tf.Tensor>(x: T, rotation: tf.Tensor2D): T {
  return linear(x, rotation) as T;
}

/** R with x·Rᵀ = rotateHalf(x), in linear()'s [out, in] layout. */
function rotationMatrix(hd: number): tf.Tensor2D {
  const half = hd / 2;
  const r = new Float32Array(hd * hd);
  for (let i = 0; i < half; i++) {
    r[i * hd + i + half] = -1; // out i = -x[i + half]
    r[(i + half) * hd + i] = 1; // out i + half = x[i]
  }
  return tf.tensor2d(r, [hd, hd]);
}

/** Embedding lookup; its gradient is a scatter-add (see takeRows), as wasm lacks gather's. */
function embed(table: tf.Tensor2D, ids: tf.Tensor2D): tf.Tensor3D {
  return takeRows(table, ids.reshape([-1]) as tf.Tensor1D).reshape([ids.shape[0], ids.shape[1], table.shape[1]]);
}

/** Cached keys or values [B, H, C, hd] (the first `filled` positions real) followed by `next` [B, H, L, hd]. */
function extendCache(cached: tf.Tensor4D, next: tf.Tensor4D, filled: number): tf.Tensor4D {
  const capacity = cached.shape[2];
  if (capacity > filled && capacity >= filled + next.shape[2]) return writeKvInPlace(cached, next, filled);
  const used = capacity > filled ? cached.slice([0, 0, 0, 0], [-1, -1, filled, -1]) : cached;
  return tf.concat([used, next], 2);
}

/**
 * Seed of a model's index-th random weight: never 0, which tfjs reads as "no seed" (Math.random), and
 * far apart for different model seeds, which seed + index is not (adjacent seeds would share shifted
 * copies of the same weights). Distinct for seeds ≥ 0 and fewer than 1,000 weights.
 */
export const weightSeed = (seed: number, index: number): number => seed * 1000 + index + 1;

/**
 * The Qwen2 decoder (embeddings, RMSNorm, RoPE, grouped-query attention with q/k/v biases,
 * SwiGLU MLP, tied or untied head) in plain tfjs ops, so every backend runs it. Weights are
 * tf.Variables named as in Hugging Face checkpoints. With `valueHead` it is a critic.
 */
export class Qwen2Model {
  readonly weights = new Map<string, tf.Variable>();
  private readonly invFreq: tf.Tensor1D;
  private readonly rotation: tf.Tensor2D;
  private ropeTable: { size: number; cos: tf.Tensor2D; sin: tf.Tensor2D } | null = null;

  constructor(
    readonly config: Qwen2Config,
    readonly opts: { valueHead?: boolean } = {},
  ) {
    const hd = headDim(config);
    this.invFreq = tf.keep(tf.tensor1d(Array.from({ length: hd / 2 }, (_, i) => 1 / config.rope_theta ** ((2 * i) / hd))));
    this.rotation = tf.keep(rotationMatrix(hd));
    // built with the model (a pass's tensors are counted without it); longer contexts grow it
    this.rotations(Math.min(config.max_position_embeddings, 4096));
  }

  /** Names and shapes of every weight, Hugging Face naming. */
  static weightShapes(c: Qwen2Config, valueHead = false): Map<string, number[]> {
    const hd = headDim(c);
    const shapes = new Map<string, number[]>([['model.embed_tokens.weight', [c.vocab_size, c.hidden_size]]]);
    for (let i = 0; i < c.num_hidden_layers; i++) {
      const p = `model.layers.${i}.`;
      shapes.set(`${p}input_layernorm.weight`, [c.hidden_size]);
      shapes.set(`${p}self_attn.q_proj.weight`, [c.num_attention_heads * hd, c.hidden_size]);
      shapes.set(`${p}self_attn.q_proj.bias`, [c.num_attention_heads * hd]);
      shapes.set(`${p}self_attn.k_proj.weight`, [c.num_key_value_heads * hd, c.hidden_size]);
      shapes.set(`${p}self_attn.k_proj.bias`, [c.num_key_value_heads * hd]);
      shapes.set(`${p}self_attn.v_proj.weight`, [c.num_key_value_heads * hd, c.hidden_size]);
      shapes.set(`${p}self_attn.v_proj.bias`, [c.num_key_value_heads * hd]);
      shapes.set(`${p}self_attn.o_proj.weight`, [c.hidden_size, c.num_attention_heads * hd]);
      shapes.set(`${p}post_attention_layernorm.weight`, [c.hidden_size]);
      shapes.set(`${p}mlp.gate_proj.weight`, [c.intermediate_size, c.hidden_size]);
      shapes.set(`${p}mlp.up_proj.weight`, [c.intermediate_size, c.hidden_size]);
      shapes.set(`${p}mlp.down_proj.weight`, [c.hidden_size, c.intermediate_size]);
    }
    shapes.set('model.norm.weight', [c.hidden_size]);
    if (!c.tie_word_embeddings && !valueHead) shapes.set('lm_head.weight', [c.vocab_size, c.hidden_size]);
    if (valueHead) {
      shapes.set('score.weight', [1, c.hidden_size]);
      shapes.set('score.bias', [1]);
    }
    return shapes;
  }

  /** Random initialisation as transformers does it: normal(0, initializer_range) matrices, zero biases, unit norms. */
  static init(config: Qwen2Config, opts: { valueHead?: boolean; seed?: number } = {}): Qwen2Model {
    const m = new Qwen2Model(config, opts);
    let index = 0;
    for (const [name, shape] of Qwen2Model.weightShapes(config, opts.valueHead)) {
      const std = name === 'score.weight' ? 0.002 : (config.initializer_range ?? 0.02);
      const init = name.endsWith('norm.weight')
        ? tf.ones(shape)
        : name.endsWith('.bias')
          ? tf.zeros(shape)
          : tf.randomNormal(shape, 0, std, 'float32', weightSeed(opts.seed ?? 0, index++));
      m.weights.set(name, tf.variable(init, true, `${name}#${Math.random().toString(36).slice(2)}`));
      init.dispose();
    }
    return m;
  }

  /** Build from loaded tensors (missing value head is initialised; extra names are an error). */
  static fromTensors(config: Qwen2Config, tensors: Map<string, TensorData>, opts: { valueHead?: boolean; seed?: number } = {}): Qwen2Model {
    const m = new Qwen2Model(config, opts);
    for (const [name, shape] of Qwen2Model.weightShapes(config, opts.valueHead)) {
      const t = tensors.get(name);
      let value: tf.Tensor;
      if (t) {
        if (t.shape.join() !== shape.join()) throw new Error(`weight ${name} has shape [${t.shape}], expected [${shape}]`);
        value = tf.tensor(t.data as Float32Array, shape, 'float32');
      } else if (name.startsWith('score.')) {
        value = name.endsWith('bias') ? tf.zeros(shape) : tf.randomNormal(shape, 0, 0.002, 'float32', weightSeed(opts.seed ?? 0, 999));
      } else {
        throw new Error(`checkpoint is missing weight ${name}`);
      }
      m.weights.set(name, tf.variable(value, true, `${name}#${Math.random().toString(36).slice(2)}`));
      value.dispose();
    }
    return m;
  }

  /**
   * cos and sin of the RoPE angles of positions 0 … size − 1, [size, hd], computed as a forward pass
   * would (float32 position × inverse frequency) once, and grown by doubling: every pass gathers its
   * positions' rows instead of evaluating sin and cos of each.
   */
  private rotations(size: number): { size: number; cos: tf.Tensor2D; sin: tf.Tensor2D } {
    if (this.ropeTable && this.ropeTable.size >= size) return this.ropeTable;
    const n = 2 ** Math.ceil(Math.log2(Math.max(size, 2)));
    if (this.ropeTable) tf.dispose([this.ropeTable.cos, this.ropeTable.sin]);
    this.ropeTable = tf.tidy(() => {
      const angles = tf.range(0, n, 1, 'float32').expandDims(1).mul(this.invFreq.expandDims(0)); // [n, hd/2]
      const emb = tf.concat([angles, angles], 1);
      return { size: n, cos: tf.keep(emb.cos() as tf.Tensor2D), sin: tf.keep(emb.sin() as tf.Tensor2D) };
    });
    return this.ropeTable;
  }

  private w(name: string): tf.Variable {
    const v = this.weights.get(name);
    if (!v) throw new Error(`no weight ${name}`);
    return v;
  }

  trainableVariables(): tf.Variable[] {
    return [...this.weights.values()];
  }

  /**
   * Hidden states after the final norm: [batch, len, hidden]. `mask` marks real tokens (left
   * padding allowed); position ids are the running count of real tokens, so padding shifts nothing.
   */
  hidden(ids: tf.Tensor2D, mask: tf.Tensor2D, opts: ForwardOptions = {}): { hidden: tf.Tensor3D; cache?: KvCache } {
    const c = this.config;
    const hd = headDim(c);
    const [batch, len] = ids.shape;
    const maskF = mask.toFloat();
    const past = opts.cache;
    // position = (real tokens before this one, counting the cache)
    const startPos = past ? past.nextPosition.toFloat() : tf.zeros([batch]);
    const positions = tf.cumsum(maskF, 1).sub(1).add(startPos.expandDims(1)).maximum(0).toInt(); // [B, L]
    // a row's next position never passes its cache's width (each real token holds a slot)
    const table = this.rotations((past ? past.mask.shape[1] : 0) + len);
    const rotationsAt = (t: tf.Tensor2D) => tf.gather(t, positions.reshape([-1])).reshape([batch, 1, len, hd]); // [B, 1, L, hd]
    const cos = rotationsAt(table.cos);
    const sin = rotationsAt(table.sin);
    const fullMask = (past ? tf.concat([past.mask.toFloat(), maskF], 1) : maskF) as tf.Tensor2D; // [B, T]
    // query i (absolute pastLen+i) sees key j when j <= pastLen+i and key j is real
    const maskBias = attentionMask(fullMask, len, c.num_attention_heads / c.num_key_value_heads);

    const nH = c.num_attention_heads;
    // the last layer's queries at the listed rows, through the kernel that takes them so (elsewhere all
    // positions run and the rows are taken at the end)
    const rows = opts.at instanceof Int32Array && blasActive() && !past ? listedRows(opts.at, batch, len) : null;
    const rope = (t: tf.Tensor, cs: tf.Tensor, sn: tf.Tensor) => t.mul(cs).add(rotateHalf(t, this.rotation).mul(sn));
    // the 1/√d scale goes on q, not on the [L, T] scores: one fewer score-sized tensor kept for the backward pass
    const scale = 1 / Math.sqrt(hd);
    let x: tf.Tensor = embed(this.w('model.embed_tokens.weight') as tf.Tensor2D, ids);
    const newKeys: tf.Tensor4D[] = [];
    const newValues: tf.Tensor4D[] = [];
    for (let i = 0; i < c.num_hidden_layers; i++) {
      const p = `model.layers.${i}.`;
      const h = rmsNorm(x, this.w(`${p}input_layernorm.weight`), c.rms_norm_eps);
      const heads = (t: tf.Tensor, n: number, l = len) => t.reshape([batch, l, n, hd]).transpose([0, 2, 1, 3]) as tf.Tensor4D;
      const proj = (t: tf.Tensor, name: string) =>
        linear(t, this.w(`${p}self_attn.${name}_proj.weight`), this.w(`${p}self_attn.${name}_proj.bias`));
      let k = rope(heads(proj(h, 'k'), c.num_key_value_heads), cos, sin) as tf.Tensor4D;
      let v = heads(proj(h, 'v'), c.num_key_value_heads);
      if (past) {
        k = extendCache(past.keys[i]!, k, past.mask.shape[1]);
        v = extendCache(past.values[i]!, v, past.mask.shape[1]);
      }
      if (opts.returnCache) {
        newKeys.push(tf.keep(k));
        newValues.push(tf.keep(v));
      }
      const narrow = i === c.num_hidden_layers - 1 ? opts.at : undefined;
      let merged: tf.Tensor;
      if (narrow === 'last') {
        // each row's last position only: one query per row over all the keys
        const last = (t: tf.Tensor) => t.slice([0, 0, len - 1, 0], [batch, 1, 1, hd]);
        x = x.slice([0, len - 1, 0], [batch, 1, -1]);
        const q = rope(heads(proj(h.slice([0, len - 1, 0], [batch, 1, -1]), 'q'), nH, 1), last(cos), last(sin)).mul(scale);
        const mask = attentionMask(fullMask, 1, nH / c.num_key_value_heads);
        merged = attention({ q: q as tf.Tensor4D, k, v, mask })
          .transpose([0, 2, 1, 3])
          .reshape([batch, 1, nH * hd]);
      } else if (narrow && rows) {
        const n = opts.at!.length;
        const pick = (t: tf.Tensor) => takeRows(t.reshape([batch * len, -1]) as tf.Tensor2D, rows.index);
        x = pick(x);
        // the positions' rotations (no gradient flows into them)
        const at = (t: tf.Tensor) => tf.gather(t.reshape([batch * len, hd]), rows.index).expandDims(1);
        const q = rope(proj(pick(h), 'q').reshape([n, nH, hd]), at(cos), at(sin)).mul(scale);
        merged = fusedAttention(q, k, v, fullMask, rows.listed).reshape([n, nH * hd]);
      } else {
        const q = rope(heads(proj(h, 'q'), nH), cos, sin).mul(scale) as tf.Tensor4D;
        merged = attention({ q, k, v, mask: maskBias })
          .transpose([0, 2, 1, 3])
          .reshape([batch, len, nH * hd]);
      }
      x = x.add(linear(merged, this.w(`${p}self_attn.o_proj.weight`)));
      const h2 = rmsNorm(x, this.w(`${p}post_attention_layernorm.weight`), c.rms_norm_eps);
      const gate = linear(h2, this.w(`${p}mlp.gate_proj.weight`));
      const up = linear(h2, this.w(`${p}mlp.up_proj.weight`));
      const act = blasActive() ? nativeSwiglu(gate, up) : gate.mul(tf.sigmoid(gate)).mul(up);
      x = x.add(linear(act, this.w(`${p}mlp.down_proj.weight`)));
    }
    let hidden = rmsNorm(x, this.w('model.norm.weight'), c.rms_norm_eps) as tf.Tensor3D;
    if (opts.at instanceof Int32Array) {
      // [1, N, hidden]: the listed rows, which the last layer ran alone or which are taken now
      const taken = rows ? hidden : takeRows(hidden.reshape([batch * len, -1]) as tf.Tensor2D, tf.tensor1d(opts.at, 'int32'));
      hidden = taken.reshape([1, opts.at.length, c.hidden_size]) as tf.Tensor3D;
    }
    if (!opts.returnCache) return { hidden };
    const cache: KvCache = {
      keys: newKeys,
      values: newValues,
      mask: tf.keep(fullMask.toInt() as tf.Tensor2D),
      nextPosition: tf.keep(startPos.add(maskF.sum(1)).toInt() as tf.Tensor1D),
    };
    return { hidden, cache };
  }

  /** Next-token logits: [batch, len, vocab]. */
  logits(hidden: tf.Tensor3D): tf.Tensor3D {
    const head = this.config.tie_word_embeddings ? this.w('model.embed_tokens.weight') : this.w('lm_head.weight');
    return linear(hidden, head) as tf.Tensor3D;
  }

  /** Critic values per position: [batch, len] (needs valueHead). */
  values(hidden: tf.Tensor3D): tf.Tensor2D {
    return linear(hidden, this.w('score.weight'), this.w('score.bias')).squeeze([2]) as tf.Tensor2D;
  }

  forward(ids: tf.Tensor2D, mask: tf.Tensor2D): tf.Tensor3D {
    return tf.tidy(() => this.logits(this.hidden(ids, mask).hidden));
  }

  /** Weights as plain arrays (for safetensors). */
  async exportTensors(): Promise<Map<string, { shape: number[]; data: Float32Array }>> {
    const out = new Map<string, { shape: number[]; data: Float32Array }>();
    for (const [name, v] of this.weights) out.set(name, { shape: v.shape, data: (await v.data()) as Float32Array });
    return out;
  }

  /** Copy of this model (new variables), e.g. the frozen reference policy or a critic's start. */
  clone(opts: { valueHead?: boolean; trainable?: boolean } = {}): Qwen2Model {
    const valueHead = opts.valueHead ?? this.opts.valueHead ?? false;
    const m = new Qwen2Model(this.config, { valueHead });
    for (const [name, shape] of Qwen2Model.weightShapes(this.config, valueHead)) {
      const src = this.weights.get(name);
      const value = src ? src.clone() : name.endsWith('bias') ? tf.zeros(shape) : tf.randomNormal(shape, 0, 0.002, 'float32', 7);
      m.weights.set(name, tf.variable(value, opts.trainable ?? true, `${name}#${Math.random().toString(36).slice(2)}`));
      value.dispose();
    }
    return m;
  }

  dispose(): void {
    for (const v of this.weights.values()) v.dispose();
    this.weights.clear();
    this.invFreq.dispose();
    this.rotation.dispose();
    if (this.ropeTable) tf.dispose([this.ropeTable.cos, this.ropeTable.sin]);
    this.ropeTable = null;
  }
}

/**
 * `cache` (taken over: disposed) with `room` more positions after its filled ones, which decoding then
 * writes in place instead of copying the cache for every token. Only where attention runs in the native
 * kernel, which reads the filled positions of a longer cache; elsewhere the cache is returned as it is.
 */
export function withRoom(cache: KvCache, room: number): KvCache {
  // a cache compacted with room already has it
  if (!blasActive() || room <= cache.keys[0]!.shape[2] - cache.mask.shape[1]) return cache;
  const grow = (t: tf.Tensor4D) => {
    const [b, h, , hd] = t.shape;
    const out = tf.tidy(() => tf.concat([t, tf.zeros([b, h, room, hd])], 2) as tf.Tensor4D);
    t.dispose();
    return out;
  };
  return { ...cache, keys: cache.keys.map(grow), values: cache.values.map(grow) };
}

export function disposeCache(cache: KvCache | undefined): void {
  if (!cache) return;
  tf.dispose([...cache.keys, ...cache.values, cache.mask, cache.nextPosition]);
}
