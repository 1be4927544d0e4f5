import * as tf from '@tensorflow/tfjs';
import { buildRunConfig } from '@starpo/contracts';
import { Rng } from '@starpo/envs';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { EarlyStopper } from '../src/algo/early-stop.js';
import { adjustBatch, filterGroups } from '../src/algo/filter.js';
import { aggLoss, klEstimate, policyLossPerToken, valueLossPerToken } from '../src/algo/losses.js';

const arr = (t: tf.Tensor) => Array.from(t.dataSync());

beforeAll(async () => {
  await initBackend('cpu');
});

// Expected values: a float64 NumPy re-implementation of VERL's and ROLL's loss, aggregation, KL and filter
// code paths; each test gives the inputs and the reference outputs it checks.
describe('PPO policy loss per token (clip, clip-higher, dual clip)', () => {
  const A = [1, 1, -1, -1, -1, 0.5];
  const r = [1.5, 0.5, 0.5, 1.1, 5.0, 1.0];
  const run = (clipHigh: number, dual: number | null) => {
    const logp = tf.tensor2d([r.map(Math.log)]);
    const old = tf.zerosLike(logp) as tf.Tensor2D;
    return arr(policyLossPerToken(logp, old, tf.tensor2d([A]), { clipLow: 0.2, clipHigh, dualClip: dual }).loss);
  };
  const close = (got: number[], want: number[]) => got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 5));
  it('clip-higher 0.2/0.28 with dual clip 3', () => close(run(0.28, 3), [-1.28, -0.5, 0.8, 1.1, 3.0, -0.5]));
  it('symmetric 0.2 with dual clip 3', () => close(run(0.2, 3), [-1.2, -0.5, 0.8, 1.1, 3.0, -0.5]));
  it('ROLL-style dual clip c = 1 + 2ε = 1.4', () => close(run(0.2, 1.4), [-1.2, -0.5, 0.8, 1.1, 1.4, -0.5]));
  it('no dual clip', () => close(run(0.2, null), [-1.2, -0.5, 0.8, 1.1, 5.0, -0.5]));
  it('reports where the clip was active', () => {
    const out = policyLossPerToken(tf.tensor2d([r.map(Math.log)]), tf.zeros([1, 6]) as tf.Tensor2D, tf.tensor2d([A]), {
      clipLow: 0.2,
      clipHigh: 0.28,
      dualClip: 3,
    });
    expect(arr(out.clipped)).toEqual([1, 0, 1, 0, 0, 0]);
    expect(arr(out.dualClipped)).toEqual([0, 0, 0, 0, 1, 0]);
  });
});

describe('loss aggregation modes', () => {
  const L = tf.tensor2d([
    [1, 2, 3],
    [4, 9, 9],
  ]) as tf.Tensor2D;
  const M = tf.tensor2d([
    [1, 1, 1],
    [1, 0, 0],
  ]) as tf.Tensor2D;
  it('each mode', () => {
    expect(aggLoss(L, M, 'token-mean').dataSync()[0]).toBeCloseTo(2.5);
    expect(aggLoss(L, M, 'seq-mean-token-mean').dataSync()[0]).toBeCloseTo(3.0);
    expect(aggLoss(L, M, 'seq-mean-token-sum').dataSync()[0]).toBeCloseTo(5.0);
    expect(aggLoss(L, M, 'seq-mean-token-sum-norm', { scale: 3 }).dataSync()[0]).toBeCloseTo(3.333333, 5);
  });
  it('micro-batch denominators: two halves with the global count sum to the whole', () => {
    const whole = aggLoss(L, M, 'token-mean').dataSync()[0]!;
    const a = aggLoss(L.slice([0, 0], [1, 3]), M.slice([0, 0], [1, 3]), 'token-mean', { tokenCount: 4 }).dataSync()[0]!;
    const b = aggLoss(L.slice([1, 0], [1, 3]), M.slice([1, 0], [1, 3]), 'token-mean', { tokenCount: 4 }).dataSync()[0]!;
    expect(a + b).toBeCloseTo(whole);
  });
});

describe('KL estimators k1, k2, k3', () => {
  const logp = tf.tensor1d([-1.0, -2.0, -0.3]);
  const ref = tf.tensor1d([-1.5, -1.0, -0.3]);
  it('k1, k2, k3', () => {
    arr(klEstimate(logp, ref, 'k1')).forEach((v, i) => expect(v).toBeCloseTo([0.5, -1.0, 0][i]!, 5));
    arr(klEstimate(logp, ref, 'k2')).forEach((v, i) => expect(v).toBeCloseTo([0.125, 0.5, 0][i]!, 5));
    arr(klEstimate(logp, ref, 'k3')).forEach((v, i) => expect(v).toBeCloseTo([0.106531, 0.718282, 0][i]!, 5));
  });
});

describe('value loss', () => {
  it('takes the larger of the clipped and unclipped squared errors, halved', () => {
    const out = valueLossPerToken(tf.tensor2d([[2, 0.2]]), tf.tensor2d([[0, 0]]), tf.tensor2d([[1, 1]]), 0.5);
    // token 0: (2−1)² = 1 vs (0.5−1)² = 0.25 → 0.5; token 1: (0.2−1)² = 0.64 vs same → 0.32
    arr(out.loss).forEach((v, i) => expect(v).toBeCloseTo([0.5, 0.32][i]!, 5));
    expect(arr(out.clipped)).toEqual([0, 0]);
  });
});

describe('StarPO-S filter and batch adjustment', () => {
  const groups = [
    [1, 1, 1, 1],
    [1, 0, 1, 0],
    [0, 0, 0, 1],
    [0, 0, 0, 0],
  ];
  it('std ranking keeps the most uncertain groups', () => {
    const f = filterGroups(groups, { metric: 'std', ratio: 0.25, includeZero: true });
    expect(f.kept).toEqual([1]);
    f.groupStd.forEach((s, i) => expect(s).toBeCloseTo([0, 0.57735, 0.5, 0][i]!, 5));
    expect(filterGroups(groups, { metric: 'std', ratio: 0.5, includeZero: true }).kept).toEqual([1, 2]);
    expect(filterGroups(groups, { metric: 'std', ratio: 1, includeZero: true }).kept).toHaveLength(4);
    expect(f.zeroStdGroups).toBe(2);
    expect(f.keptRatio).toBe(0.25);
  });
  it('std_rev and mean metrics; includeZero false drops zero-variance groups (DAPO keeps 1 and 2)', () => {
    expect(filterGroups(groups, { metric: 'std_rev', ratio: 0.25, includeZero: true }).kept).toEqual([0]);
    expect(filterGroups(groups, { metric: 'mean', ratio: 0.25, includeZero: true }).kept).toEqual([0]);
    expect(filterGroups(groups, { metric: 'std', ratio: 1, includeZero: false }).kept).toEqual([1, 2]);
    expect(
      filterGroups(
        [
          [1, 1],
          [0, 0],
        ],
        { metric: 'std', ratio: 0.5, includeZero: false },
      ).kept,
    ).toEqual([]);
  });
  it('adjustBatch copies up or deletes down to a multiple', () => {
    const rng = new Rng(1);
    const up = adjustBatch([0, 1, 2, 3, 4], 4, 'copy', rng);
    expect(up).toHaveLength(8);
    expect(up.slice(0, 5)).toEqual([0, 1, 2, 3, 4]);
    expect(up.every((i) => i >= 0 && i <= 4)).toBe(true);
    expect(adjustBatch([0, 1, 2, 3, 4], 4, 'delete', rng)).toHaveLength(4);
    expect(adjustBatch([0, 1, 2], 4, 'delete', rng)).toHaveLength(4);
    expect(adjustBatch([0, 1, 2, 3], 4, 'copy', rng)).toEqual([0, 1, 2, 3]);
  });
});

describe('early stopping', () => {
  const config = buildRunConfig('starpo-s-ppo').earlyStopping;
  it('stops after 5 consecutive empty batches; a non-empty step resets the count', () => {
    const s = new EarlyStopper(config);
    for (let i = 0; i < 4; i++) expect(s.onStep({ emptyAfterFilter: true, inGroupRewardStd: 0 })).toBeNull();
    expect(s.onStep({ emptyAfterFilter: false, inGroupRewardStd: 1 })).toBeNull();
    for (let i = 0; i < 4; i++) expect(s.onStep({ emptyAfterFilter: true, inGroupRewardStd: 0 })).toBeNull();
    expect(s.onStep({ emptyAfterFilter: true, inGroupRewardStd: 0 })).toBe('empty_filtered_steps');
  });
  it('stops when in-group reward std stays below 10% of its 10-step baseline for 10 steps', () => {
    const s = new EarlyStopper(config);
    for (let i = 0; i < 10; i++) expect(s.onStep({ emptyAfterFilter: false, inGroupRewardStd: 1 })).toBeNull();
    for (let i = 0; i < 9; i++) expect(s.onStep({ emptyAfterFilter: false, inGroupRewardStd: 0.05 })).toBeNull();
    expect(s.onStep({ emptyAfterFilter: false, inGroupRewardStd: 0.2 })).toBeNull();
    for (let i = 0; i < 9; i++) expect(s.onStep({ emptyAfterFilter: false, inGroupRewardStd: 0.05 })).toBeNull();
    expect(s.onStep({ emptyAfterFilter: false, inGroupRewardStd: 0.05 })).toBe('reward_variance_collapse');
  });
  it('stops after 5 consecutive validations below 1% success', () => {
    const s = new EarlyStopper(config);
    for (let i = 0; i < 4; i++) expect(s.onValidation({ 'val/sokoban/success': 0 })).toBeNull();
    expect(s.onValidation({ 'val/sokoban/success': 0.02 })).toBeNull();
    for (let i = 0; i < 4; i++) expect(s.onValidation({ 'val/sokoban/success': 0.005 })).toBeNull();
    expect(s.onValidation({ 'val/sokoban/success': 0 })).toBe('low_validation_success');
  });
  it('does nothing when disabled', () => {
    const s = new EarlyStopper({ ...config, enabled: false });
    for (let i = 0; i < 20; i++) expect(s.onStep({ emptyAfterFilter: true, inGroupRewardStd: 0 })).toBeNull();
  });
});
