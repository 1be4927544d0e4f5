import * as tf from '@tensorflow/tfjs';
import { blasActive, fusedAttention } from './blas-kernel.js';
import { matMul2d } from './matmul.js';

const NEG_INF = -1e9;

/**
 * The attention mask of one forward pass, built once and shared by every layer, in the layout of the
 * attention path it selects: the additive mask (0 where query i may see key j, −1e9 elsewhere) as
 * `batched` [B, 1, L, T] or `perRow` one [L, T] per sequence, or for the native kernel only `keys`
 * [B, T] (1 for a real key), the causal part being implied by the positions.
 */
export type AttentionMask = { batched: tf.Tensor4D } | { perRow: tf.Tensor2D[] } | { keys: tf.Tensor2D };

const toBias = (allowed: tf.Tensor) => tf.sub(1, allowed).mul(NEG_INF);

/** `causal` [L, T]: 1 where query i may see key j; `keyMask` [B, T]: 1 for real tokens, 0 for left padding. */
export function batchedMask(causal: tf.Tensor2D, keyMask: tf.Tensor2D): AttentionMask {
  return { batched: toBias(causal.expandDims(0).mul(keyMask.toFloat().expandDims(1))).expandDims(1) as tf.Tensor4D };
}

export function perRowMask(causal: tf.Tensor2D, keyMask: tf.Tensor2D): AttentionMask {
  const [batch, total] = keyMask.shape;
  const keys = keyMask.toFloat();
  return { perRow: Array.from({ length: batch }, (_, b) => toBias(causal.mul(keys.slice([b, 0], [1, total]))) as tf.Tensor2D) };
}

/** `causal` [L, T]: 1 where query i (position T − L + i) may see key j. */
export function causalMask(len: number, total: number): tf.Tensor2D {
  // built as [L, T] directly (a decode step is one row), not cut from a [T, T] band
  return tf
    .lessEqual(tf.range(0, total, 1, 'int32').expandDims(0), tf.range(total - len, total, 1, 'int32').expandDims(1))
    .toFloat() as tf.Tensor2D;
}

/**
 * The mask of `len` queries over the keys of `keyMask` [B, T] (float, 1 for real tokens), for `groups`
 * query heads per KV head. The native kernel masks inside itself (the [L, T] mask costs a prefill
 * more than its products there). wasm copies slices at ~200 MB/s, so batching and then cutting the
 * [L, T] score matrices per row (its 2-D products are the fast ones) cost more than the products:
 * long sequences there go row by row from the start.
 */
export function attentionMask(keyMask: tf.Tensor2D, len: number, groups: number): AttentionMask {
  if (blasActive()) return { keys: keyMask };
  const total = keyMask.shape[1];
  const causal = causalMask(len, total);
  return tf.getBackend() === 'wasm' && groups * len * total >= 1 << 16 ? perRowMask(causal, keyMask) : batchedMask(causal, keyMask);
}

export interface AttentionInputs {
  /** Queries [B, nH, L, hd], already scaled by 1/√hd. */
  q: tf.Tensor4D;
  /** Keys and values [B, nKv, T, hd] (the cache included). */
  k: tf.Tensor4D;
  v: tf.Tensor4D;
  mask: AttentionMask;
}

/**
 * Grouped-query attention softmax(q·kᵀ + mask)·v without repeating K/V: the g query heads that
 * share a KV head are folded into the sequence axis (HF's repeat_kv order: KV head j serves query
 * heads j*g … j*g+g-1). Returns [B, nH, L, hd].
 */
export function attention(x: AttentionInputs): tf.Tensor4D {
  const [batch, nH, len, hd] = x.q.shape;
  const [, nKv, total] = x.k.shape;
  const groups = nH / nKv;
  if ('keys' in x.mask) return fusedAttention(x.q, x.k, x.v, x.mask.keys) as tf.Tensor4D;
  if ('perRow' in x.mask) return attentionPerRow(x, x.mask.perRow);
  // q·kᵀ with the transpose folded into the product: a decode step would otherwise copy the whole key cache
  const k = x.k.reshape([batch * nKv, total, hd]) as tf.Tensor3D;
  const scores = tf
    .matMul(x.q.reshape([batch * nKv, groups * len, hd]) as tf.Tensor3D, k, false, true)
    .reshape([batch, nH, len, total])
    .add(x.mask.batched);
  const probs = tf.softmax(scores).reshape([batch * nKv, groups * len, total]) as tf.Tensor3D;
  return tf.matMul(probs, x.v.reshape([batch * nKv, total, hd]) as tf.Tensor3D).reshape([batch, nH, len, hd]);
}

/** The same product, one plain 2-D chain per (sequence, KV head): only the small q/k/v are cut. */
function attentionPerRow(x: AttentionInputs, bias: tf.Tensor2D[]): tf.Tensor4D {
  const [batch, nH, len, hd] = x.q.shape;
  const [, nKv, total] = x.k.shape;
  const groups = nH / nKv;
  const out: tf.Tensor[] = [];
  for (let b = 0; b < batch; b++) {
    for (let j = 0; j < nKv; j++) {
      const q = x.q.slice([b, j * groups, 0, 0], [1, groups, len, hd]).reshape([groups * len, hd]) as tf.Tensor2D;
      const k = x.k.slice([b, j, 0, 0], [1, 1, total, hd]).reshape([total, hd]) as tf.Tensor2D;
      const v = x.v.slice([b, j, 0, 0], [1, 1, total, hd]).reshape([total, hd]) as tf.Tensor2D;
      const scores = matMul2d(q, k.transpose()).reshape([groups, len, total]).add(bias[b]!);
      const probs = tf.softmax(scores).reshape([groups * len, total]) as tf.Tensor2D;
      out.push(matMul2d(probs, v).reshape([groups, len, hd]));
    }
  }
  return tf.concat(out, 0).reshape([batch, nH, len, hd]);
}
