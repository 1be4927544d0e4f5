import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { attention, batchedMask } from '../src/model/attention.js';
import { blasActive, installBlasMatMul, loadSgemm, uninstallBlasMatMul } from '../src/model/blas-kernel.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import { maxAbsDiff } from './fixtures.js';

const built = loadSgemm();
if (!built.addon) console.warn(`OpenBLAS matMul tests skipped: ${built.why}`);

/** [aShape, bShape, transposeA, transposeB]: plain, transposed, batched, broadcast, degenerate. */
const CASES: [number[], number[], boolean, boolean][] = [
  [[7, 5], [5, 3], false, false],
  [[5, 7], [5, 3], true, false],
  [[7, 5], [3, 5], false, true],
  [[5, 7], [3, 5], true, true],
  [[4, 6, 5], [4, 5, 2], false, false],
  [[4, 6, 5], [5, 2], false, false],
  [[6, 5], [2, 3, 2, 5], false, true],
  [[2, 3, 6, 5], [1, 1, 5, 4], false, false],
  [[1, 1], [1, 1], false, false],
  [[3, 0], [0, 4], false, false],
];

/** Every matMul of `fn` on the tfjs kernel and on OpenBLAS, in one process. */
async function bothKernels<T>(backend: 'cpu' | 'wasm', fn: () => Promise<T>): Promise<[T, T]> {
  uninstallBlasMatMul(backend);
  const reference = await fn();
  expect(installBlasMatMul(backend).ok).toBe(true);
  expect(blasActive()).toBe(true);
  return [reference, await fn()];
}

for (const backend of ['cpu', 'wasm'] as const) {
  describe.skipIf(!built.addon)(`OpenBLAS matMul, ${backend} backend`, () => {
    it('gives the tfjs kernel’s products on plain, transposed, batched and broadcast shapes', async () => {
      await initBackend(backend);
      for (const [as, bs, ta, tb] of CASES) {
        const a = tf.randomNormal(as, 0, 1, 'float32', 1);
        const b = tf.randomNormal(bs, 0, 1, 'float32', 2);
        const [ref, fast] = await bothKernels(backend, async () => {
          const c = tf.matMul(a, b, ta, tb);
          return { shape: c.shape, data: Array.from(await c.data()) };
        });
        expect(fast.shape, `${as}·${bs} ${ta} ${tb}`).toEqual(ref.shape);
        expect(maxAbsDiff(fast.data, ref.data), `${as}·${bs} ${ta} ${tb}`).toBeLessThan(1e-4);
      }
    });

    it('fused attention gives the tfjs path’s output and gradients (grouped heads, left padding, a cache)', async () => {
      await initBackend(backend);
      const [batch, nH, nKv, len, past, hd] = [2, 6, 2, 5, 4, 8];
      const total = past + len;
      const causal = tf
        .lessEqual(tf.range(0, total, 1, 'int32').expandDims(0), tf.range(past, total, 1, 'int32').expandDims(1))
        .toFloat() as tf.Tensor2D;
      const keyMask = tf.tensor2d([Array(total).fill(1), [0, 0, 0, ...Array(total - 3).fill(1)]], [batch, total], 'int32');
      const mask = batchedMask(causal, keyMask);
      const q = tf.randomNormal([batch, nH, len, hd], 0, 1, 'float32', 1);
      const k = tf.randomNormal([batch, nKv, total, hd], 0, 1, 'float32', 2);
      const v = tf.randomNormal([batch, nKv, total, hd], 0, 1, 'float32', 3);
      const weights = tf.randomNormal([batch, nH, len, hd], 0, 1, 'float32', 4);
      const f = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) =>
        attention({ q: a as tf.Tensor4D, k: b as tf.Tensor4D, v: c as tf.Tensor4D, mask })
          .mul(weights)
          .sum();
      const [ref, fast] = await bothKernels(backend, async () => {
        const out = Array.from(await attention({ q, k, v, mask }).data());
        const grads = await Promise.all(
          tf
            .grads(f)([q, k, v])
            .map(async (g) => Array.from(await g.data())),
        );
        return { out, grads };
      });
      expect(maxAbsDiff(fast.out, ref.out)).toBeLessThan(1e-5);
      for (const [i, g] of fast.grads.entries()) expect(maxAbsDiff(g, ref.grads[i]!), 'qkv'[i]).toBeLessThan(1e-4);
    });

    it('gives a starpo-tiny model the same logits and gradients as the tfjs path', async () => {
      await initBackend(backend);
      const model = Qwen2Model.init(starpoTinyConfig('nano', 50), { seed: 3 });
      const ids = tf.tensor2d(
        [
          [5, 9, 11, 4, 7, 8, 20, 3],
          [0, 0, 6, 2, 14, 9, 30, 1],
        ],
        undefined,
        'int32',
      );
      const mask = tf.tensor2d(
        [
          [1, 1, 1, 1, 1, 1, 1, 1],
          [0, 0, 1, 1, 1, 1, 1, 1],
        ],
        undefined,
        'int32',
      );
      const vars = model.trainableVariables();
      const [ref, fast] = await bothKernels(backend, async () => {
        const { value, grads } = tf.variableGrads(() => model.forward(ids, mask).logSoftmax().mean().neg() as tf.Scalar, vars);
        const out = {
          loss: (await value.data())[0]!,
          logits: Array.from(await model.forward(ids, mask).data()),
          grads: await Promise.all(vars.map(async (v) => Array.from(await grads[v.name]!.data()))),
        };
        tf.dispose([value, ...Object.values(grads)]);
        return out;
      });
      expect(Math.abs(fast.loss - ref.loss)).toBeLessThan(1e-5);
      expect(maxAbsDiff(fast.logits, ref.logits)).toBeLessThan(1e-4);
      for (const [i, g] of fast.grads.entries()) expect(maxAbsDiff(g, ref.grads[i]!), vars[i]!.name).toBeLessThan(1e-4);
      model.dispose();
    });
  });
}

describe.skipIf(!built.addon)('the sgemm addon', () => {
  it('refuses arrays too small for the sizes given, and non-float32 arrays', () => {
    const s = built.addon!;
    const a = new Float32Array(6);
    expect(() => s.sgemm(a, a, new Float32Array(4), 1, 3, 3, 2, false, false, 0, 0)).toThrow(/exceed/);
    expect(() => s.sgemm(a, new Int32Array(6) as unknown as Float32Array, a, 1, 1, 1, 1, false, false, 0, 0)).toThrow(/Float32Array/);
    // attention: a probs array one float short, and heads that do not divide into KV groups
    const dims = [1, 2, 1, 2, 3, 2];
    const [q, kv, bias, probs] = [new Float32Array(8), new Float32Array(6), new Float32Array(6), new Float32Array(11)];
    expect(() => s.attentionForward(q, kv, kv, bias, new Float32Array(8), probs, dims)).toThrow(/wrong arguments or sizes/);
    expect(() => s.attentionForward(q, kv, kv, bias, new Float32Array(8), new Float32Array(12), [1, 3, 2, 2, 3, 2])).toThrow(
      /wrong arguments/,
    );
  });
});
