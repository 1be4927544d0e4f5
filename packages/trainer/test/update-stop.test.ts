import * as tf from '@tensorflow/tfjs';
import { buildRunConfig } from '@starpo/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { syntheticSamples } from './fixtures.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import { vocabularyCorpus } from '../src/pretrain/corpus.js';
import { CompactTokenizer, buildCompactVocab } from '../src/tokenizer/compact-tokenizer.js';

import { AdamW } from '../src/train/optimizer.js';
import { actorStep, criticStep } from '../src/train/update.js';

const tokenizer = new CompactTokenizer(buildCompactVocab(vocabularyCorpus(40)));
const config = starpoTinyConfig('nano', tokenizer.vocabSize);
// one row per micro-batch: four micro-batches per step, so a stop can land between two of them
const c = buildRunConfig('starpo-s-ppo', { ppo: { microBatchSize: 1 } });

/** A signal that turns aborted on its `after`+1-th look: a stop that arrives between two micro-batches. */
function abortsAfter(after: number): { signal: AbortSignal; looks: () => number } {
  let looks = 0;
  const signal = {
    get aborted() {
      return ++looks > after;
    },
    reason: 'cancelled by user',
    addEventListener: () => {},
    removeEventListener: () => {},
  } as unknown as AbortSignal;
  return { signal, looks: () => looks };
}

const samples = syntheticSamples;

const weights = (m: Qwen2Model) => m.trainableVariables().flatMap((v) => Array.from(v.dataSync()));
const optimizer = (m: Qwen2Model) =>
  new AdamW({ lr: 1e-2, betas: [0.9, 0.999], weightDecay: 0.01, maxGradNorm: 1 }, m.trainableVariables());

describe('a stop request inside an update step', () => {
  beforeAll(async () => {
    await initBackend('cpu');
  });
  afterAll(() => tf.disposeVariables());

  it('actor: a stop between micro-batches drops the step (no weight moves, no tensor leaks); the next step is the one a fresh optimizer takes', async () => {
    const policy = Qwen2Model.init(config, { seed: 3 });
    const opt = optimizer(policy);
    const before = weights(policy);
    const tensors = tf.memory().numTensors;
    const stop = abortsAfter(1);
    const r = await actorStep(policy, opt, samples(), c, 0, 4096, null, stop.signal);
    expect(r.stopped).toBe(true);
    expect(stop.looks()).toBe(2); // one micro-batch done, stopped before the second of four
    expect(weights(policy)).toEqual(before);
    expect(tf.memory().numTensors).toBe(tensors);

    // nothing of the dropped step lingers in the optimizer: its next step equals a fresh one's
    const fresh = Qwen2Model.init(config, { seed: 3 });
    const freshOpt = optimizer(fresh);
    const a = await actorStep(policy, opt, samples(), c, 0, 4096);
    const b = await actorStep(fresh, freshOpt, samples(), c, 0, 4096);
    expect(a.stopped).toBeUndefined();
    expect(a.gradNorm).toBe(b.gradNorm);
    expect(weights(policy)).toEqual(weights(fresh));
    for (const m of [policy, fresh]) m.dispose();
    for (const o of [opt, freshOpt]) o.dispose();
  }, 60_000);

  it('critic: a stop between micro-batches drops the step as well', async () => {
    const critic = Qwen2Model.init(config, { seed: 4, valueHead: true });
    const opt = optimizer(critic);
    const before = weights(critic);
    const stop = abortsAfter(2);
    const r = await criticStep(critic, opt, samples(), c, 0, 4096, stop.signal);
    expect(r.stopped).toBe(true);
    expect(stop.looks()).toBe(3);
    expect(weights(critic)).toEqual(before);
    const done = await criticStep(critic, opt, samples(), c, 0, 4096);
    expect(done.stopped).toBeUndefined();
    expect(weights(critic)).not.toEqual(before);
    critic.dispose();
    opt.dispose();
  }, 60_000);
});
