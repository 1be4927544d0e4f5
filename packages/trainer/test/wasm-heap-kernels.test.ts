import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { installHeapKernels, uninstallHeapKernels } from '../src/model/wasm-heap-kernels.js';

type DType = 'float32' | 'int32' | 'bool';

/**
 * `run` on the cpu backend (tfjs's reference kernels) or on wasm with the library's kernels or this
 * project's, checked to leave no tensor behind.
 */
async function on<T>(where: 'cpu' | 'wasm-library' | 'wasm-heap', run: () => Promise<T>): Promise<T> {
  await initBackend('wasm'); // registers the wasm backend (once)
  await tf.setBackend(where === 'cpu' ? 'cpu' : 'wasm');
  expect(tf.getBackend()).toBe(where === 'cpu' ? 'cpu' : 'wasm');
  if (where === 'wasm-heap') installHeapKernels();
  else uninstallHeapKernels();
  const before = tf.memory().numTensors;
  const out = await run();
  expect(tf.memory().numTensors - before).toBe(0);
  return out;
}

describe('wasm Slice and GatherV2 copying within the heap', { timeout: 60_000 }, () => {
  let seed = 7;
  // the generator's high bits: its low bits cycle in short periods
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), Math.floor((seed / 2 ** 31) * n));
  const tensor = (shape: number[], dtype: DType) => {
    const n = shape.reduce((a, b) => a * b, 1);
    return tf.tensor(
      Array.from({ length: n }, (_, i) => (dtype === 'bool' ? i % 3 === 0 : i * 1.5 - 7)),
      shape,
      dtype,
    );
  };
  const dtypes = ['float32', 'int32', 'bool'] as const;

  it('Slice cuts the same values as the library kernel, for every rank, dtype and box', async () => {
    await initBackend('wasm');
    const cases: { shape: number[]; begin: number[]; size: number[]; dtype: DType }[] = [];
    for (let i = 0; i < 200; i++) {
      const rank = 1 + rand(5);
      const shape = Array.from({ length: rank }, () => 1 + rand(6));
      const begin = shape.map((n) => rand(n));
      // -1 takes the rest of an axis; 0 is an empty box
      const size = shape.map((n, d) => [-1, 0, n - begin[d]!, 1 + rand(n - begin[d]!)][rand(4)]!);
      cases.push({ shape, begin, size, dtype: dtypes[rand(3)]! });
    }
    cases.push({ shape: [35, 2, 892, 24], begin: [10, 0, 0, 0], size: [10, 2, 892, 24], dtype: 'float32' }); // a KV cache's rows
    const cut = async () => {
      const out = [];
      for (const c of cases) {
        const x = tensor(c.shape, c.dtype);
        const y = x.slice(c.begin, c.size);
        out.push({ shape: y.shape, values: Array.from(await y.data()) });
        tf.dispose([x, y]);
      }
      return out;
    };
    const cpu = await on('cpu', cut);
    expect(await on('wasm-library', cut)).toEqual(cpu);
    expect(await on('wasm-heap', cut)).toEqual(cpu);
  });

  it('GatherV2 picks the same values for every axis and batch dimension, and refuses the same bad index', async () => {
    await initBackend('wasm');
    const cases: { shape: number[]; indices: number[][]; axis: number; batchDims: number; dtype: DType }[] = [];
    for (let i = 0; i < 150; i++) {
      const rank = 1 + rand(4);
      const shape = Array.from({ length: rank }, () => 1 + rand(5));
      const batchDims = rand(Math.min(rank, 2));
      const axis = batchDims + rand(rank - batchDims);
      // indices: the batch dimensions of x, then 1-2 free dimensions of positions on `axis`
      const free = [1 + rand(4)];
      const idxShape = [...shape.slice(0, batchDims), ...free];
      const count = idxShape.reduce((a, b) => a * b, 1);
      cases.push({
        shape,
        indices: [idxShape, Array.from({ length: count }, () => rand(shape[axis]!))],
        axis,
        batchDims,
        dtype: dtypes[rand(3)]!,
      });
    }
    cases.push({
      shape: [600, 48],
      indices: [[500], Array.from({ length: 500 }, (_, i) => (i * 7) % 600)],
      axis: 0,
      batchDims: 0,
      dtype: 'float32',
    });
    cases.push({ shape: [20, 100], indices: [[3], [19, 0, 7]], axis: 0, batchDims: 0, dtype: 'int32' }); // rows of 100: copied by view
    // the library's wasm kernel reads out of bounds on some of these (batch dimensions), so the
    // reference is the cpu backend's
    const pick = async () => {
      const out = [];
      for (const c of cases) {
        const x = tensor(c.shape, c.dtype);
        const idx = tf.tensor(c.indices[1]!, c.indices[0]!, 'int32');
        const y = tf.gather(x, idx, c.axis, c.batchDims);
        out.push({ shape: y.shape, values: Array.from(await y.data()) });
        tf.dispose([x, idx, y]);
      }
      const x = tensor([4, 3], 'float32');
      const bad = tf.tensor1d([1, 4], 'int32');
      let refused = '';
      try {
        tf.gather(x, bad).dispose();
      } catch (e) {
        refused = (e as Error).message;
      }
      tf.dispose([x, bad]);
      out.push({ shape: [], values: [refused] });
      return out;
    };
    const cpu = await on('cpu', pick);
    const heap = await on('wasm-heap', pick);
    expect(heap).toEqual(cpu);
    expect(heap.at(-1)!.values[0]).toMatch(/index value 4 is not in \[0, 3\]/);
  });
});
