import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { uninstallBlasMatMul } from '../src/model/blas-kernel.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import { buildRunConfig, type RunConfig } from '@starpo/contracts';
import type { Trajectory } from '../src/rollout/types.js';
import { chunkByTokens, scoreSamples, toSample, type Sample } from '../src/train/batch.js';
import { AdamW } from '../src/train/optimizer.js';
import { trimToCredit } from '../src/train/actor-rows.js';
import { actorStep } from '../src/train/update.js';

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

describe('actor step on credited tokens only', () => {
  it('trimming uncredited tails and rows leaves the update unchanged', async () => {
    // tfjs's kernels: with OpenBLAS the trimmed and full batches' gradients differ by summation order,
    // which AdamW (lr 1e-2) turns into weight differences beyond 1e-5 on components that are rounding noise
    await initBackend('cpu');
    uninstallBlasMatMul('cpu');
    const cfg = starpoTinyConfig('nano', 32);
    const n = 12;
    const sample = (i: number, credit: (t: number) => number): Sample => {
      const s = toSample({
        ids: Array.from({ length: n + 1 }, (_, t) => 3 + ((t * 5 + i) % 25)),
        lossMask: Array.from({ length: n + 1 }, (_, t) => (t >= 3 ? 1 : 0)),
        scores: new Array(n + 1).fill(0),
      } as unknown as Trajectory);
      s.oldLogProbs = s.mask.map((_, t) => -2 - 0.1 * ((t + i) % 3));
      s.advantages = s.mask.map((m, t) => (m ? credit(t) : 0));
      return s;
    };
    const mini = [sample(0, (t) => (t < 6 ? 1 : 0)), sample(1, () => 0), sample(2, (t) => (t === 8 ? 0.5 : 0))];
    expect(trimToCredit(mini[0]!)!.ids.length).toBe(7);
    expect(trimToCredit(mini[1]!)).toBeNull();

    const after = async (entropyCoef: number, mode: RunConfig['ppo']['lossAggMode']) => {
      const model = Qwen2Model.init(cfg, { seed: 3 });
      const opt = new AdamW({ lr: 1e-2, betas: [0.9, 0.999], weightDecay: 0, maxGradNorm: 1 }, model.trainableVariables());
      const c = buildRunConfig('starpo-s-grpo');
      c.ppo.entropyCoef = entropyCoef;
      c.ppo.lossAggMode = mode;
      const r = await actorStep(model, opt, mini, c, 0, 4096);
      const w = await Promise.all(model.trainableVariables().map((v) => v.data()));
      opt.dispose();
      model.dispose();
      return { gradNorm: r.gradNorm, w: w.flatMap((x) => Array.from(x)) };
    };
    for (const mode of ['token-mean', 'seq-mean-token-mean'] as const) {
      // a 1e-9 entropy bonus takes the untrimmed path with a negligible change to the gradient
      const trimmed = await after(0, mode);
      const full = await after(1e-9, mode);
      expect(trimmed.gradNorm).toBeCloseTo(full.gradNorm, 5);
      expect(maxAbs(trimmed.w, full.w)).toBeLessThan(1e-5);
    }
    tf.disposeVariables();
  });
});

const maxAbs = (a: number[], b: number[]) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
