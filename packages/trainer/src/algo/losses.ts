import * as tf from '@tensorflow/tfjs';
import type { RunConfig } from '@starpo/contracts';

type LossAggMode = RunConfig['ppo']['lossAggMode'];

/**
 * Aggregate a [batch, len] loss over its mask (VERL agg_loss). `token-mean`: ΣL·M/ΣM;
 * `seq-mean-token-mean`: mean over sequences with a valid token of their token mean;
 * `seq-mean-token-sum`: mean over valid sequences of their token sum;
 * `seq-mean-token-sum-norm` (Dr.GRPO): ΣL·M / scale (default: the padded length).
 * `tokenCount` / `seqCount` override the denominators (for micro-batches of one mini-batch).
 */
export function aggLoss(
  loss: tf.Tensor2D,
  mask: tf.Tensor2D,
  mode: LossAggMode,
  o: { scale?: number; tokenCount?: number; seqCount?: number; rowTokens?: number[] } = {},
): tf.Scalar {
  return tf.tidy(() => {
    const lm = loss.mul(mask);
    if (mode === 'token-mean') return lm.sum().div(o.tokenCount ?? mask.sum().maximum(1)) as tf.Scalar;
    if (mode === 'seq-mean-token-sum-norm') return lm.sum().div(o.scale ?? loss.shape[1]) as tf.Scalar;
    // rowTokens: each row's full token count when the rows were trimmed (see trimToCredit)
    const perSeqTokens = o.rowTokens ? tf.tensor1d(o.rowTokens) : mask.sum(1);
    const valid = perSeqTokens.greater(0).toFloat();
    const seqs = o.seqCount ?? valid.sum().maximum(1);
    const perSeq = mode === 'seq-mean-token-mean' ? lm.sum(1).div(perSeqTokens.maximum(1)) : lm.sum(1);
    return perSeq.mul(valid).sum().div(seqs) as tf.Scalar;
  });
}

export interface ClipSettings {
  clipLow: number;
  clipHigh: number;
  /** Dual-clip constant c (> 1) or null. */
  dualClip: number | null;
}

/**
 * PPO clipped policy loss per token (VERL compute_policy_loss_vanilla): ratio = exp(clamp(logπ −
 * logπ_old, ±20)); L = max(−A·r, −A·clip(r, 1−ε_low, 1+ε_high)); with dual clip, for A < 0,
 * L = min(L, −A·c). Also returns the masks where the upper clip and the dual clip were active.
 */
export function policyLossPerToken(
  logp: tf.Tensor2D,
  oldLogp: tf.Tensor2D,
  adv: tf.Tensor2D,
  c: ClipSettings,
): { loss: tf.Tensor2D; clipped: tf.Tensor2D; dualClipped: tf.Tensor2D; ratio: tf.Tensor2D } {
  const ratio = logp.sub(oldLogp).clipByValue(-20, 20).exp() as tf.Tensor2D;
  const l1 = adv.neg().mul(ratio);
  const l2 = adv.neg().mul(ratio.clipByValue(1 - c.clipLow, 1 + c.clipHigh));
  let loss = tf.maximum(l1, l2) as tf.Tensor2D;
  const clipped = l2.greater(l1).toFloat() as tf.Tensor2D;
  let dualClipped = tf.zerosLike(loss) as tf.Tensor2D;
  if (c.dualClip !== null) {
    const bound = adv.neg().mul(c.dualClip);
    const neg = adv.less(0);
    dualClipped = neg.logicalAnd(loss.greater(bound)).toFloat() as tf.Tensor2D;
    loss = tf.where(neg, tf.minimum(loss, bound), loss) as tf.Tensor2D;
  }
  return { loss, clipped, dualClipped, ratio };
}

type KlType = RunConfig['ppo']['kl']['type'];

/** KL estimators of the sampled token: k1 = logπ − logπ_ref; k2 = ½(·)²; k3 (low-variance) = e^d − d − 1 with d = ref − logπ, clamped. */
export function klEstimate(logp: tf.Tensor, ref: tf.Tensor, type: KlType): tf.Tensor {
  return tf.tidy(() => {
    const diff = logp.sub(ref);
    if (type === 'k1') return diff;
    if (type === 'k2') return diff.square().mul(0.5);
    const d = ref.sub(logp).clipByValue(-20, 20);
    return d.exp().sub(d).sub(1).clipByValue(-10, 10);
  });
}

/** Clipped value loss per token: ½·max((V − R)², (V_old + clip(V − V_old, ±c) − R)²). */
export function valueLossPerToken(
  values: tf.Tensor2D,
  oldValues: tf.Tensor2D,
  returns: tf.Tensor2D,
  clip: number,
): { loss: tf.Tensor2D; clipped: tf.Tensor2D } {
  const vClipped = oldValues.add(values.sub(oldValues).clipByValue(-clip, clip));
  const a = values.sub(returns).square();
  const b = vClipped.sub(returns).square();
  return { loss: tf.maximum(a, b).mul(0.5) as tf.Tensor2D, clipped: b.greater(a).toFloat() as tf.Tensor2D };
}
