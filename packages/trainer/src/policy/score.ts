import * as tf from '@tensorflow/tfjs';
import { blasActive } from '../model/blas-kernel.js';
import { nativeTokenLogProbs } from '../model/native-ops.js';
import type { Qwen2Model } from '../model/qwen2.js';

/**
 * Teacher-forced per-token log-probabilities and entropies: position t scores token t+1.
 * Differentiable (used by the losses). Shapes: [batch, len - 1].
 * With `temperature` ≠ 1 the logits are divided by it first (as verl does), so a policy sampled at
 * temperature T is scored, and optimised, as the distribution its tokens were drawn from.
 */
export function tokenLogProbs(
  model: Qwen2Model,
  ids: tf.Tensor2D,
  mask: tf.Tensor2D,
  opts: { entropy?: boolean; temperature?: number } = {},
): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D | null } {
  const [batch, len] = ids.shape;
  const raw = model.logits(model.hidden(ids, mask).hidden);
  const t = scoringTemperature(opts.temperature);
  if (blasActive()) {
    const r = nativeTokenLogProbs(raw, ids, t);
    return { logProbs: r.logProbs, entropy: opts.entropy === false ? null : r.entropy };
  }
  const logits = (t === 1 ? raw : raw.div(t)) as tf.Tensor3D;
  const vocab = logits.shape[2];
  const logp = tf.logSoftmax(logits.slice([0, 0, 0], [batch, len - 1, vocab]));
  const targets = ids.slice([0, 1], [batch, len - 1]);
  // one-hot selection: gather's gradient needs UnsortedSegmentSum, which wasm lacks
  const picked = logp.mul(tf.oneHot(targets.reshape([-1]), vocab).reshape([batch, len - 1, vocab])).sum(2) as tf.Tensor2D;
  const entropy = opts.entropy === false ? null : (logp.exp().mul(logp).sum(2).neg() as tf.Tensor2D);
  return { logProbs: picked, entropy };
}

/** Pack variable-length sequences (left-padded) with their per-token masks shifted to target positions. */
export function packSequences(
  seqs: { ids: number[]; lossMask: number[] }[],
  padId: number,
): { ids: tf.Tensor2D; mask: tf.Tensor2D; targetMask: tf.Tensor2D; offsets: number[] } {
  const len = Math.max(...seqs.map((s) => s.ids.length));
  const b = seqs.length;
  const ids = new Int32Array(b * len).fill(padId);
  const mask = new Int32Array(b * len);
  const target = new Float32Array(b * (len - 1));
  const offsets: number[] = [];
  seqs.forEach((s, i) => {
    const off = len - s.ids.length;
    offsets.push(off);
    ids.set(s.ids, i * len + off);
    mask.fill(1, i * len + off, i * len + len);
    // target position t (0-based within len-1) scores token t+1
    for (let t = 0; t < s.ids.length; t++) if (s.lossMask[t] && off + t >= 1) target[i * (len - 1) + off + t - 1] = 1;
  });
  return {
    ids: tf.tensor2d(ids, [b, len], 'int32'),
    mask: tf.tensor2d(mask, [b, len], 'int32'),
    targetMask: tf.tensor2d(target, [b, len - 1], 'float32'),
    offsets,
  };
}

/** Sampling temperature 0 is greedy decoding; its tokens are scored at temperature 1. */
export function scoringTemperature(t: number | undefined): number {
  return t === undefined || t <= 0 ? 1 : t;
}
