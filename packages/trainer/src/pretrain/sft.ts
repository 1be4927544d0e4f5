import * as tf from '@tensorflow/tfjs';
import type { Qwen2Model } from '../model/qwen2.js';
import { packSequences, tokenLogProbs } from '../policy/score.js';
import { AdamW, accumulateGradients } from '../train/optimizer.js';
import { throwIfStopped } from '../util/stop.js';
import { yieldToEventLoop } from '../util/yield.js';
import type { Rng } from '@starpo/envs';

export interface SftExample {
  ids: number[];
  lossMask: number[];
}

export interface SftSettings {
  epochs: number;
  /** Sequences per optimizer step. */
  batchSize: number;
  /** Max padded tokens (sequences × longest) per forward/backward pass; gradients accumulate across passes. */
  microBatchTokens: number;
  lr: number;
  weightDecay: number;
  maxGradNorm: number;
}

export interface SftProgress {
  step: number;
  totalSteps: number;
  loss: number;
  tokensPerSecond: number;
}

/** Split a batch into runs whose padded size (count × longest) stays within `maxTokens`. */
export function microBatches<T extends { ids: number[] }>(items: T[], maxTokens: number): T[][] {
  const sorted = [...items].sort((a, b) => a.ids.length - b.ids.length);
  const out: T[][] = [];
  let cur: T[] = [];
  for (const it of sorted) {
    if (cur.length && (cur.length + 1) * it.ids.length > maxTokens) {
      out.push(cur);
      cur = [];
    }
    cur.push(it);
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Gradients of `weight` × the mean cross-entropy over the examples' loss-masked tokens, summed into
 * `grads` micro-batch by micro-batch; returns that weighted loss.
 */
export async function accumulateCrossEntropy(
  model: Qwen2Model,
  examples: SftExample[],
  padId: number,
  maxTokens: number,
  weight: number,
  grads: Map<string, tf.Tensor>,
): Promise<number> {
  const vars = model.trainableVariables();
  const totalTokens = examples.reduce((a, x) => a + x.lossMask.reduce((p, q) => p + q, 0), 0);
  let loss = 0;
  for (const micro of microBatches(examples, maxTokens)) {
    await yieldToEventLoop(); // a worker's heartbeat, cancel and database replies wait for these turns
    const packed = packSequences(micro, padId);
    loss += await accumulateGradients(
      () =>
        tf.tidy(() => {
          const { logProbs } = tokenLogProbs(model, packed.ids, packed.mask, { entropy: false });
          return logProbs
            .mul(packed.targetMask)
            .sum()
            .neg()
            .mul(weight / Math.max(1, totalTokens)) as tf.Scalar;
        }),
      vars,
      grads,
    );
    tf.dispose([packed.ids, packed.mask, packed.targetMask]);
  }
  return loss;
}

/** Supervised fine-tuning: mean cross-entropy over the loss-masked (assistant) tokens. `signal` is polled between optimizer steps. */
export async function supervisedTrain(
  model: Qwen2Model,
  data: SftExample[],
  s: SftSettings,
  padId: number,
  rng: Rng,
  onStep?: (p: SftProgress) => void,
  signal?: AbortSignal,
): Promise<{ finalLoss: number }> {
  const vars = model.trainableVariables();
  const opt = new AdamW({ lr: s.lr, betas: [0.9, 0.98], weightDecay: s.weightDecay, maxGradNorm: s.maxGradNorm }, vars);
  const stepsPerEpoch = Math.ceil(data.length / s.batchSize);
  const totalSteps = stepsPerEpoch * s.epochs;
  let step = 0;
  let emaLoss = NaN;
  try {
    for (let epoch = 0; epoch < s.epochs; epoch++) {
      // Batches of similar length waste less compute on padding; their order is shuffled.
      const order = rng.shuffle(data.map((_, i) => i)).sort((a, b) => data[a]!.ids.length - data[b]!.ids.length);
      const batches: number[][] = [];
      for (let i = 0; i < order.length; i += s.batchSize) batches.push(order.slice(i, i + s.batchSize));
      for (const batch of rng.shuffle(batches)) {
        throwIfStopped(signal); // its news came in during the last step's yields (accumulateCrossEntropy)
        const lr = s.lr * Math.min(1, (step + 1) / Math.max(1, Math.floor(totalSteps * 0.05))) * (0.1 + 0.9 * (1 - step / totalSteps));
        opt.setLearningRate(lr);
        const t0 = performance.now();
        const grads = new Map<string, tf.Tensor>();
        const examples = batch.map((i) => data[i]!);
        const tokens = examples.reduce((a, x) => a + x.ids.length, 0);
        const loss = await accumulateCrossEntropy(model, examples, padId, s.microBatchTokens, 1, grads);
        await opt.step(grads);
        step++;
        emaLoss = Number.isNaN(emaLoss) ? loss : 0.9 * emaLoss + 0.1 * loss;
        onStep?.({ step, totalSteps, loss: emaLoss, tokensPerSecond: tokens / ((performance.now() - t0) / 1000) });
      }
    }
  } finally {
    opt.dispose();
  }
  return { finalLoss: emaLoss };
}
