import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { installBlasMatMul, uninstallBlasMatMul } from '../src/model/blas-kernel.js';
import { loadSgemm } from '../src/model/native-addon.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import { packSequences, tokenLogProbs } from '../src/policy/score.js';
import { scoreSamples } from '../src/train/batch.js';
import { maxAbsDiff } from './fixtures.js';

const built = loadSgemm();

/** Dialogues of different lengths (so rows are padded) whose replies, the trained tokens, are a few spans. */
const dialogues = [23, 9, 17, 4].map((n, r) => {
  const ids = Array.from({ length: n }, (_, t) => 3 + ((t * 5 + r * 3) % 27));
  const lossMask = ids.map((_, t) => (t % 7 >= 4 && t > 1 ? 1 : 0));
  return { ids, lossMask };
});

const engines = [['tfjs kernels', false] as const, ...(built.addon ? [['OpenBLAS and native kernels', true] as const] : [])];

describe.each(engines)('scoring only the trained positions (%s)', (_, blas) => {
  it('gives them the log-probs, entropies and gradients of scoring every position', async () => {
    await initBackend('cpu');
    if (blas) expect(installBlasMatMul('cpu').ok).toBe(true);
    else uninstallBlasMatMul('cpu');
    const model = Qwen2Model.init(starpoTinyConfig('nano', 32), { seed: 5 });
    const packed = packSequences(dialogues, 0);
    const mask = packed.targetMask;
    expect(packed.scored.length).toBe(mask.sum().dataSync()[0]);
    const weights = tf.randomUniform(mask.shape, 0.5, 1.5, 'float32', 9);
    const run = (only?: Int32Array) => {
      const opts = { temperature: 0.7, ...(only ? { only } : {}) };
      const { value, grads } = tf.variableGrads(() => {
        const { logProbs, entropy } = tokenLogProbs(model, packed.ids, packed.mask, opts);
        return logProbs.add(entropy!.mul(0.3)).mul(mask).mul(weights).sum() as tf.Scalar;
      }, model.trainableVariables());
      const scored = tf.tidy(() => tokenLogProbs(model, packed.ids, packed.mask, opts));
      const out = {
        loss: value.dataSync()[0]!,
        logProbs: Array.from(scored.logProbs.mul(mask).dataSync()),
        entropy: Array.from(scored.entropy!.mul(mask).dataSync()),
        // the positions left out are 0
        outside: Array.from(scored.logProbs.mul(tf.sub(1, mask)).dataSync()),
        grads: model.trainableVariables().map((v) => Array.from(grads[v.name]!.dataSync())),
      };
      tf.dispose([value, ...Object.values(grads), scored.logProbs, scored.entropy!]);
      return out;
    };
    const every = run();
    const only = run(packed.scored);
    expect(only.loss).toBeCloseTo(every.loss, 4);
    expect(maxAbsDiff(only.logProbs, every.logProbs)).toBeLessThan(1e-5);
    expect(maxAbsDiff(only.entropy, every.entropy)).toBeLessThan(1e-5);
    expect(only.outside.every((x) => x === 0)).toBe(true);
    expect(every.outside.some((x) => x !== 0)).toBe(true);
    // float32 sums in another order: within 1e-5 of the largest entry of each gradient
    every.grads.forEach((g, i) => {
      const scale = Math.max(...g.map(Math.abs));
      expect(maxAbsDiff(only.grads[i]!, g) / scale, model.trainableVariables()[i]!.name).toBeLessThan(1e-5);
    });

    // scoreSamples with target-space masks: the same values at the trained positions
    const rows = dialogues.map((d) => ({ ids: d.ids, mask: d.lossMask.slice(1) }));
    const [withMasks, without] = [await scoreSamples(model, rows, 0, 64, 0.7), await scoreSamples(model, dialogues, 0, 64, 0.7)];
    rows.forEach((r, i) => r.mask.forEach((m, t) => m && expect(withMasks.logProbs[i]![t]).toBeCloseTo(without.logProbs[i]![t]!, 5)));
    tf.dispose([packed.ids, packed.mask, packed.targetMask, weights]);
    model.dispose();
  });
});
