import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import { chunkByTokens, scoreSamples } from '../src/train/batch.js';

describe('length-sorted scoring chunks', () => {
  it('chunkByTokens packs shortest first; scoreSamples still answers in input order', async () => {
    await initBackend('cpu');
    const samples = [9, 3, 14, 5, 11].map((n, i) => ({ ids: Array.from({ length: n }, (_, t) => 3 + ((t * 7 + i) % 20)) }));
    const chunks = chunkByTokens(samples, 30);
    expect(chunks.flat().map((s) => s.ids.length)).toEqual([3, 5, 9, 11, 14]);
    expect(chunks.length).toBeGreaterThan(1);

    const model = Qwen2Model.init(starpoTinyConfig('nano', 32), { seed: 1 });
    const together = await scoreSamples(model, samples, 0, 30);
    for (const [i, s] of samples.entries()) {
      const alone = await scoreSamples(model, [s], 0, 30);
      expect(together.logProbs[i]!.length).toBe(s.ids.length - 1);
      together.logProbs[i]!.forEach((lp, t) => expect(lp).toBeCloseTo(alone.logProbs[0]![t]!, 5));
    }
    tf.disposeVariables();
  });
});
