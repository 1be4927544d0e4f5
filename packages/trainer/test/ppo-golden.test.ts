import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { buildRunConfig, type RunConfig } from '@starpo/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import type { Qwen2Config } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import type { TensorData } from '../src/model/safetensors.js';
import { actorRows } from '../src/train/actor-rows.js';
import { toSample, type Sample } from '../src/train/batch.js';
import { criticStep, accumulateActorGradients } from '../src/train/update.js';
import { AdamW } from '../src/train/optimizer.js';
import type { Trajectory } from '../src/rollout/types.js';

/** Losses and gradients from PyTorch (golden/ppo/make_reference.py, float64); see that script for the formulas. */
interface Reference {
  config: Qwen2Config;
  weights: Record<string, { shape: number[]; data: number[] }>;
  batch: {
    ids: number[];
    mask: number[];
    oldLogProbs: number[];
    refLogProbs: number[];
    advantages: number[];
    values: number[];
    returns: number[];
  }[];
  actor: {
    name: string;
    settings: {
      lossAggMode: RunConfig['ppo']['lossAggMode'];
      clipLow: number;
      clipHigh: number;
      dualClip: number | null;
      entropyCoef: number;
      kl: { type: 'k1' | 'k3'; coef: number } | null;
      temperature: number;
    };
    loss: number;
    grads: Record<string, number[]>;
  }[];
  critic: { valueClip: number; loss: number; grads: Record<string, number[]> };
}

const ref = JSON.parse(
  readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden/ppo/reference.json'), 'utf8'),
) as Reference;
const TOLERANCE = 1e-4;

function model(valueHead: boolean): Qwen2Model {
  const tensors = new Map<string, TensorData>(
    Object.entries(ref.weights)
      .filter(([name]) => valueHead || !name.startsWith('score.'))
      .map(([name, w]) => [name, { shape: w.shape, data: Float32Array.from(w.data) } as TensorData]),
  );
  return Qwen2Model.fromTensors(ref.config, tensors, { valueHead });
}

function samples(): Sample[] {
  return ref.batch.map((r) => {
    const s = toSample({
      ids: r.ids,
      lossMask: [0, ...r.mask],
      scores: new Array(r.ids.length).fill(0),
      segmentStarts: [0],
    } as unknown as Trajectory);
    return { ...s, oldLogProbs: r.oldLogProbs, refLogProbs: r.refLogProbs, advantages: r.advantages, values: r.values, returns: r.returns };
  });
}

/** ‖got − want‖ / ‖want‖ over one weight's gradient. */
async function relativeError(got: tf.Tensor | undefined, want: number[]): Promise<number> {
  const g = got ? await got.data() : new Float32Array(want.length);
  let num = 0;
  let den = 0;
  want.forEach((w, i) => ((num += (g[i]! - w) ** 2), (den += w * w)));
  return Math.sqrt(num) / Math.max(Math.sqrt(den), 1e-12);
}

/** Gradients keyed by weight name (variables are named `<weight>#<suffix>`). */
const byWeight = (grads: Map<string, tf.Tensor>) => new Map([...grads].map(([k, v]) => [k.split('#')[0]!, v]));

for (const backend of ['cpu', 'wasm'] as const)
  describe(`PPO update against PyTorch (${backend})`, () => {
    let policy: Qwen2Model;
    beforeAll(async () => {
      await initBackend(backend);
      policy = model(false);
    });
    afterAll(() => policy.dispose());

    for (const [k, c] of ref.actor.entries())
      for (const microBatchSize of k === 0 ? [1, 2, 16] : [2])
        it(`actor: ${c.name} (micro-batches of ${microBatchSize}): the loss and every weight's gradient`, async () => {
          const s = c.settings;
          const config = buildRunConfig(undefined, {
            rollout: { temperature: s.temperature },
            ppo: {
              lossAggMode: s.lossAggMode,
              clipRatioLow: s.clipLow,
              clipRatioHigh: s.clipHigh,
              dualClip: s.dualClip,
              entropyCoef: s.entropyCoef,
              kl: s.kl ? { type: s.kl.type, coef: s.kl.coef, in: 'loss' } : { coef: 0 },
            },
          });
          const { rows, settings } = actorRows(samples(), config);
          const grads = new Map<string, tf.Tensor>();
          const acc = await accumulateActorGradients(policy, rows, settings, 0, 4096, microBatchSize, grads);
          expect(Math.abs(acc!.partials.loss - c.loss) / Math.abs(c.loss)).toBeLessThan(TOLERANCE);
          const got = byWeight(grads);
          for (const [name, want] of Object.entries(c.grads))
            expect(await relativeError(got.get(name), want), name).toBeLessThan(TOLERANCE);
          tf.dispose([...grads.values()]);
        });

    it("critic: the clipped value loss and every weight's gradient, value head included", async () => {
      const critic = model(true);
      // a zero learning rate: the optimizer step leaves the weights, the test reads the gradients it was given
      const opt = new AdamW({ lr: 0, betas: [0.9, 0.999], weightDecay: 0, maxGradNorm: 1e9 }, critic.trainableVariables());
      let seen = new Map<string, tf.Tensor>();
      const step = opt.step.bind(opt);
      opt.step = async (grads) => {
        seen = new Map([...byWeight(grads)].map(([k, v]) => [k, v.clone()]));
        return step(grads);
      };
      const config = buildRunConfig(undefined, { ppo: { valueClip: ref.critic.valueClip, microBatchSize: 2 } });
      const r = await criticStep(critic, opt, samples(), config, 0, 4096);
      expect(Math.abs(r.loss - ref.critic.loss) / ref.critic.loss).toBeLessThan(TOLERANCE);
      for (const [name, want] of Object.entries(ref.critic.grads))
        expect(await relativeError(seen.get(name), want), name).toBeLessThan(TOLERANCE);
      tf.dispose([...seen.values()]);
      opt.dispose();
      critic.dispose();
    });
  });
