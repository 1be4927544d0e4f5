import * as tf from '@tensorflow/tfjs';
import { blasActive } from '../model/blas-kernel.js';
import { nativeTokenLogProbs } from '../model/native-ops.js';
import type { Qwen2Model } from '../model/qwen2.js';
import { placeAt } from '../model/rows.js';

/** Per position but the last of `raw` [B, L, V]: the log-prob of the next token of `tokens` [B, L] at temperature t, and the entropy. */
function scoreLogits(
  raw: tf.Tensor3D,
  tokens: tf.Tensor2D,
  t: number,
  entropy: boolean,
): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D | null } {
  if (blasActive()) {
    const r = nativeTokenLogProbs(raw, tokens, t);
    return { logProbs: r.logProbs, entropy: entropy ? r.entropy : null };
  }
  const [batch, len, vocab] = raw.shape;
  const logits = (t === 1 ? raw : raw.div(t)) as tf.Tensor3D;
  const logp = tf.logSoftmax(logits.slice([0, 0, 0], [batch, len - 1, vocab]));
  const targets = tokens.slice([0, 1], [batch, len - 1]);
  // one-hot selection: gather's gradient needs UnsortedSegmentSum, which wasm lacks
  const picked = logp.mul(tf.oneHot(targets.reshape([-1]), vocab).reshape([batch, len - 1, vocab])).sum(2) as tf.Tensor2D;
  return { logProbs: picked, entropy: entropy ? (logp.exp().mul(logp).sum(2).neg() as tf.Tensor2D) : null };
}

/**
 * Teacher-forced per-token log-probabilities and entropies: position t scores token t+1.
 * Differentiable (used by the losses). Shapes: [batch, len - 1].
 * With `temperature` ≠ 1 the logits are divided by it first (as verl does), so a policy sampled at
 * temperature T is scored, and optimised, as the distribution its tokens were drawn from.
 * With `only` (flat indices into [batch, len − 1], from `packSequences`), just those positions go
 * through the last layer's queries and MLP and the vocabulary head; the others are 0. A dialogue's
 * trained tokens are its replies, a fraction of its length, and the head is the widest product of the model.
 */
export function tokenLogProbs(
  model: Qwen2Model,
  ids: tf.Tensor2D,
  mask: tf.Tensor2D,
  opts: { entropy?: boolean; temperature?: number; only?: Int32Array } = {},
): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D | null } {
  const [batch, len] = ids.shape;
  const t = scoringTemperature(opts.temperature);
  const entropy = opts.entropy !== false;
  if (!opts.only?.length) return scoreLogits(model.logits(model.hidden(ids, mask).hidden), ids, t, entropy);
  // target (b, t) is scored from hidden row b·len + t and names token b·len + t + 1
  const hiddenRows = opts.only.map((i) => Math.floor(i / (len - 1)) * len + (i % (len - 1)));
  const rows = tf.tensor1d(hiddenRows, 'int32');
  const at = tf.tensor1d(opts.only, 'int32');
  const n = opts.only.length;
  const picked = model.hidden(ids, mask, { at: hiddenRows }).hidden.reshape([n, -1]) as tf.Tensor2D;
  // one row after the picked ones: scoreLogits scores each position by the next token, so the picked rows
  // and their targets become one sequence of n + 1 positions whose last is not scored
  const seq = tf.concat([picked, tf.zeros([1, picked.shape[1]])], 0).expandDims(0) as tf.Tensor3D;
  const next = tf.gather(ids.reshape([-1]), rows.add(tf.scalar(1, 'int32')));
  const targets = tf.concat([tf.zeros([1], 'int32'), next]).expandDims(0) as tf.Tensor2D;
  const r = scoreLogits(model.logits(seq), targets, t, entropy);
  const full = (x: tf.Tensor2D) => placeAt(x.reshape([n]), at, batch * (len - 1)).reshape([batch, len - 1]) as tf.Tensor2D;
  return { logProbs: full(r.logProbs), entropy: r.entropy && full(r.entropy) };
}

/**
 * Pack variable-length sequences (left-padded) with their per-token masks shifted to target positions;
 * `scored` lists those positions as flat indices into [batch, len − 1] (tokenLogProbs' `only`).
 */
export function packSequences(
  seqs: { ids: number[]; lossMask: number[] }[],
  padId: number,
): { ids: tf.Tensor2D; mask: tf.Tensor2D; targetMask: tf.Tensor2D; offsets: number[]; scored: Int32Array } {
  const len = Math.max(...seqs.map((s) => s.ids.length));
  const b = seqs.length;
  const ids = new Int32Array(b * len).fill(padId);
  const mask = new Int32Array(b * len);
  const target = new Float32Array(b * (len - 1));
  const offsets: number[] = [];
  const scored: number[] = [];
  seqs.forEach((s, i) => {
    const off = len - s.ids.length;
    offsets.push(off);
    ids.set(s.ids, i * len + off);
    mask.fill(1, i * len + off, i * len + len);
    // target position t (0-based within len-1) scores token t+1
    for (let t = 0; t < s.ids.length; t++) {
      if (!s.lossMask[t] || off + t < 1) continue;
      const at = i * (len - 1) + off + t - 1;
      target[at] = 1;
      scored.push(at);
    }
  });
  return {
    ids: tf.tensor2d(ids, [b, len], 'int32'),
    mask: tf.tensor2d(mask, [b, len], 'int32'),
    targetMask: tf.tensor2d(target, [b, len - 1], 'float32'),
    offsets,
    scored: Int32Array.from(scored),
  };
}

/** Sampling temperature 0 is greedy decoding; its tokens are scored at temperature 1. */
export function scoringTemperature(t: number | undefined): number {
  return t === undefined || t <= 0 ? 1 : t;
}
