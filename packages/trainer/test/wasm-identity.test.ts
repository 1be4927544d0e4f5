import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import { installSharedIdentity, uninstallSharedIdentity } from '../src/model/wasm-identity.js';

describe('wasm Identity sharing memory', { timeout: 60_000 }, () => {
  it('keeps a clone alive after its source is disposed, and a clone of a clone after both', async () => {
    await initBackend('wasm');
    installSharedIdentity();
    const a = tf.tensor1d([1, 2, 3]);
    const b = a.clone();
    const c = b.clone();
    a.dispose();
    expect(Array.from(await b.data())).toEqual([1, 2, 3]);
    b.dispose();
    expect(Array.from(await c.data())).toEqual([1, 2, 3]);
    c.dispose();
    expect(tf.memory().numTensors).toBeGreaterThanOrEqual(0);
  });

  it('gives a model the same loss and gradients as the copying kernel, and leaks no tensor', async () => {
    await initBackend('wasm');
    const model = Qwen2Model.init(starpoTinyConfig('nano', 40), { seed: 5 });
    const ids = tf.tensor2d([[3, 9, 11, 4, 7, 8, 20, 3]], undefined, 'int32');
    const mask = tf.onesLike(ids) as tf.Tensor2D;
    const vars = model.trainableVariables();
    const run = async () => {
      const before = tf.memory().numTensors;
      const { value, grads } = tf.variableGrads(() => model.forward(ids, mask).logSoftmax().mean().neg() as tf.Scalar, vars);
      const out = {
        loss: (await value.data())[0]!,
        grads: await Promise.all(vars.map(async (v) => Array.from(await grads[v.name]!.data()))),
      };
      tf.dispose([value, ...Object.values(grads)]);
      return { ...out, leaked: tf.memory().numTensors - before };
    };
    uninstallSharedIdentity();
    const copying = await run();
    installSharedIdentity();
    const shared = await run();
    expect(shared.loss).toBe(copying.loss);
    expect(shared.grads).toEqual(copying.grads);
    expect(shared.leaked).toBe(0);
    model.dispose();
  });
});
