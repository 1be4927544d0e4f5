import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { attention, batchedMask, perRowMask } from '../src/model/attention.js';
import { maxAbsDiff } from './fixtures.js';

/** 2 sequences (the second left-padded by 3), 4 query heads over 2 KV heads, 5 cached keys before 7 new queries. */
function inputs() {
  const [batch, nH, nKv, len, past, hd] = [2, 4, 2, 7, 5, 8];
  const total = past + len;
  const rand = (shape: number[], seed: number) => tf.randomNormal(shape, 0, 1, 'float32', seed);
  const causal = tf
    .lessEqual(tf.range(0, total, 1, 'int32').expandDims(0), tf.range(past, past + len, 1, 'int32').expandDims(1))
    .toFloat() as tf.Tensor2D;
  const keyMask = tf.tensor2d([Array(total).fill(1), [0, 0, 0, ...Array(total - 3).fill(1)]], [batch, total], 'int32');
  return {
    q: rand([batch, nH, len, hd], 1) as tf.Tensor4D,
    k: rand([batch, nKv, total, hd], 2) as tf.Tensor4D,
    v: rand([batch, nKv, total, hd], 3) as tf.Tensor4D,
    causal,
    keyMask,
  };
}

const flat = async (t: tf.Tensor) => Array.from(await t.data());

for (const backend of ['cpu', 'wasm'] as const) {
  describe(`attention, ${backend} backend`, () => {
    it('the per-row path (wasm, long sequences) gives the batched path’s values and gradients', async () => {
      await initBackend(backend);
      const x = inputs();
      const masks = { batched: batchedMask(x.causal, x.keyMask), perRow: perRowMask(x.causal, x.keyMask) };
      const run = (path: keyof typeof masks) => (q: tf.Tensor, k: tf.Tensor, v: tf.Tensor) =>
        attention({ q: q as tf.Tensor4D, k: k as tf.Tensor4D, v: v as tf.Tensor4D, mask: masks[path] });
      const loss = (path: keyof typeof masks) => (q: tf.Tensor, k: tf.Tensor, v: tf.Tensor) =>
        run(path)(q, k, v)
          .mul(
            tf
              .range(1, 1 + 2 * 4 * 7 * 8)
              .reshape([2, 4, 7, 8])
              .div(100),
          )
          .sum() as tf.Scalar;
      const batched = run('batched')(x.q, x.k, x.v);
      const perRow = run('perRow')(x.q, x.k, x.v);
      expect(perRow.shape).toEqual([2, 4, 7, 8]);
      expect(maxAbsDiff(await flat(perRow), await flat(batched))).toBeLessThan(1e-5);
      const gB = tf.grads(loss('batched'))([x.q, x.k, x.v]);
      const gR = tf.grads(loss('perRow'))([x.q, x.k, x.v]);
      for (let i = 0; i < 3; i++) {
        expect(maxAbsDiff(await flat(gR[i]!), await flat(gB[i]!))).toBeLessThan(1e-4);
        expect((await flat(gB[i]!)).some((g) => Math.abs(g) > 1e-3)).toBe(true);
      }
      // padded keys get no weight: the second sequence's first 3 values have zero gradient
      const dv = (await gR[2]!.array()) as number[][][][];
      for (const row of dv[1]!.flatMap((head) => head.slice(0, 3))) expect(Math.max(...row.map(Math.abs))).toBe(0);
    });
  });
}
