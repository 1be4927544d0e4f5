import * as tf from '@tensorflow/tfjs';
import { buildRunConfig } from '@starpo/contracts';
import { Rng } from '@starpo/envs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { syntheticSamples } from './fixtures.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import { ComputePool } from '../src/parallel/pool.js';
import { shareByCost, splitEvenly } from '../src/parallel/shares.js';
import { vocabularyCorpus } from '../src/pretrain/corpus.js';
import { rolloutSettingsFor } from '../src/pretrain/pretrain.js';
import type { RolloutRequest } from '../src/rollout/rollout.js';
import { CompactTokenizer, buildCompactVocab } from '../src/tokenizer/compact-tokenizer.js';
import { scoreSamples, segmentRows, toSample } from '../src/train/batch.js';
import { creditOnly, trimToCredit } from '../src/train/actor-rows.js';
import { placeOldLogProbs, scoreOldLogProbs } from '../src/train/old-log-probs.js';
import { segmentRanges } from '../src/rollout/segments.js';
import type { Trajectory } from '../src/rollout/types.js';
import { AdamW } from '../src/train/optimizer.js';
import { actorStep } from '../src/train/update.js';

const tokenizer = new CompactTokenizer(buildCompactVocab(vocabularyCorpus(40)));

describe('work sharing helpers', () => {
  it('splitEvenly keeps order and sizes within one; shareByCost balances quadratic costs', () => {
    expect(splitEvenly([1, 2, 3, 4, 5], 2)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(splitEvenly([1], 3)).toEqual([[1], [], []]);
    const rows = [1000, 900, 300, 300, 300, 200].map((n) => ({ ids: new Array<number>(n).fill(0) }));
    const shares = shareByCost(rows, 2);
    expect(shares.flat()).toHaveLength(rows.length);
    const cost = (s: { ids: number[] }[]) => s.reduce((a, r) => a + r.ids.length * (r.ids.length + 1024), 0);
    const [a, b] = shares.map(cost) as [number, number];
    expect(Math.max(a, b) / Math.min(a, b)).toBeLessThan(1.3);
  });
});

describe('compute pool (one worker thread beside the main one)', () => {
  let model: Qwen2Model;
  let pool: ComputePool;
  beforeAll(async () => {
    // tfjs's own kernels here and in the worker (it inherits the environment): the pool's arithmetic is
    // under test, and OpenBLAS sums a split batch's gradients in another order, which AdamW turns into
    // weight differences of up to lr·0.01 on gradients that are rounding noise (blas-kernel.test.ts
    // compares the two engines)
    process.env.STARPO_MATMUL = 'tfjs';
    await initBackend('cpu');
    model = Qwen2Model.init(starpoTinyConfig('nano', tokenizer.vocabSize), { seed: 5 });
    pool = await ComputePool.start(1, model, tokenizer, 'cpu');
  }, 60_000);
  afterAll(async () => {
    await pool.close();
    tf.disposeVariables();
  });

  const samples = syntheticSamples;

  it('an actor step with the pool updates the weights as the main thread alone does', async () => {
    const run = async (withPool: boolean) => {
      const m = model.clone();
      const opt = new AdamW({ lr: 1e-2, betas: [0.9, 0.999], weightDecay: 0.01, maxGradNorm: 1 }, m.trainableVariables());
      const c = buildRunConfig('starpo-s-grpo');
      const stats = [];
      // two steps: the second checks that the worker received the first step's weights
      for (let k = 0; k < 2; k++) stats.push(await actorStep(m, opt, samples(), c, 0, 4096, withPool ? pool : null));
      const w = m.trainableVariables().flatMap((v) => Array.from(v.dataSync()));
      opt.dispose();
      m.dispose();
      return { stats, w };
    };
    const alone = await run(false);
    const shared = await run(true);
    shared.stats.forEach((s, k) => {
      expect(s.gradNorm).toBeCloseTo(alone.stats[k]!.gradNorm, 5);
      expect(s.loss).toBeCloseTo(alone.stats[k]!.loss, 5);
      expect(s.extra.pg_clipfrac).toBeCloseTo(alone.stats[k]!.extra.pg_clipfrac!, 5);
    });
    expect(shared.w.reduce((mx, x, i) => Math.max(mx, Math.abs(x - alone.w[i]!)), 0)).toBeLessThan(1e-5);
  }, 60_000);

  it('a stop during a shared actor step drops it on both threads; the pool then serves the next step in step', async () => {
    const weights = (m: Qwen2Model) => m.trainableVariables().flatMap((v) => Array.from(v.dataSync()));
    const adamw = (m: Qwen2Model) =>
      new AdamW({ lr: 1e-2, betas: [0.9, 0.999], weightDecay: 0.01, maxGradNorm: 1 }, m.trainableVariables());
    const c = buildRunConfig('starpo-s-grpo', { ppo: { microBatchSize: 1 } });
    const m = model.clone();
    const opt = adamw(m);
    const before = weights(m);
    const abort = new AbortController();
    const step = actorStep(m, opt, samples(), c, 0, 4096, pool, abort.signal);
    abort.abort('cancelled by user'); // lands before the first micro-batch check of either thread
    expect((await step).stopped).toBe(true);
    expect(weights(m)).toEqual(before);

    const fresh = model.clone();
    const freshOpt = adamw(fresh);
    const shared = await actorStep(m, opt, samples(), c, 0, 4096, pool);
    const alone = await actorStep(fresh, freshOpt, samples(), c, 0, 4096, null);
    expect(shared.gradNorm).toBeCloseTo(alone.gradNorm, 5);
    const w = weights(fresh);
    expect(weights(m).reduce((mx, x, i) => Math.max(mx, Math.abs(x - w[i]!)), 0)).toBeLessThan(1e-5);
    for (const x of [m, fresh]) x.dispose();
    for (const o of [opt, freshOpt]) o.dispose();
  }, 60_000);

  /** syntheticSamples plus one of two segments, every row with uncredited tails and one with no credit at all. */
  const trainingRows = () => {
    const xs = samples();
    const two = toSample({
      ids: Array.from({ length: 40 }, (_, t) => 3 + ((t * 11) % 29)),
      lossMask: Array.from({ length: 40 }, (_, t) => (t % 20 >= 6 ? 1 : 0)),
      scores: new Array(40).fill(0),
      segmentStarts: [0, 20],
    } as unknown as Trajectory);
    two.advantages = two.mask.map((m, t) => (m && t % 20 < 12 ? 0.5 : 0));
    xs.push(two);
    xs[1]!.advantages = xs[1]!.mask.map(() => 0);
    return xs;
  };
  const settings = { padId: 0, maxTokens: 4096, temperature: 0.7 };

  it("old log-probs scored only up to each row's credit equal the full scoring wherever the update reads them", async () => {
    for (const p of [null, pool]) {
      const full = trainingRows();
      const trimmed = trainingRows();
      const allEntropies = await scoreOldLogProbs(model, full, false, settings, p);
      const entropies = await scoreOldLogProbs(model, trimmed, true, settings, p);
      expect(allEntropies).toHaveLength(full.reduce((n, s) => n + s.mask.filter(Boolean).length, 0));
      const read = segmentRows(trimmed).flatMap((r) => {
        const t = trimToCredit(r);
        return t ? [t.mask.filter(Boolean).length] : [];
      });
      expect(entropies).toHaveLength(read.reduce((a, b) => a + b, 0));
      trimmed.forEach((s, i) => {
        // the positions a trimmed update reads: each segment up to its last credited token
        const reads = s.mask.map(() => false);
        for (const [a, b] of segmentRanges({ ids: s.ids, segmentStarts: s.traj.segmentStarts ?? [0] })) {
          let last = -1;
          for (let t = a; t < b - 1; t++) if (s.mask[t] && s.advantages[t] !== 0) last = t;
          for (let t = a; t <= last; t++) reads[t] = true;
        }
        s.oldLogProbs.forEach((lp, t) => {
          if (reads[t] && s.mask[t]) expect(Math.abs(lp - full[i]!.oldLogProbs[t]!)).toBeLessThan(1e-5);
          if (!reads[t]) expect(lp).toBe(0);
        });
      });
      expect(trimmed[1]!.oldLogProbs.every((x) => x === 0)).toBe(true);
      expect(full[1]!.oldLogProbs.some((x) => x !== 0)).toBe(true);
    }
  }, 60_000);

  it('an on-policy actor step takes the step that scored old log-probs give, and hands those log-probs back', async () => {
    // no entropy bonus: the rows are trimmed to their credit, as quick-cpu's are
    const c = buildRunConfig('starpo-s-grpo', { rollout: { temperature: 0.7 }, ppo: { microBatchSize: 1, entropyCoef: 0 } });
    expect(creditOnly(c)).toBe(true);
    const weights = (m: Qwen2Model) => m.trainableVariables().flatMap((v) => Array.from(v.dataSync()));
    for (const p of [null, pool]) {
      const run = async (onPolicy: boolean) => {
        const m = model.clone();
        const opt = new AdamW({ lr: 1e-2, betas: [0.9, 0.999], weightDecay: 0.01, maxGradNorm: 1 }, m.trainableVariables());
        const xs = trainingRows();
        // on-policy, the old log-probs given are never read: NaN would poison the loss
        if (onPolicy) xs.forEach((s) => s.oldLogProbs.fill(Number.NaN));
        else await scoreOldLogProbs(m, xs, creditOnly(c), settings, p);
        const r = await actorStep(m, opt, segmentRows(xs), c, 0, 4096, p, undefined, { onPolicy });
        if (onPolicy) placeOldLogProbs(xs, r.logProbs!);
        const out = { r, w: weights(m), old: xs.map((s) => s.oldLogProbs) };
        opt.dispose();
        m.dispose();
        return out;
      };
      const scored = await run(false);
      const own = await run(true);
      expect(own.r.loss).toBeCloseTo(scored.r.loss, 5);
      expect(own.r.gradNorm).toBeCloseTo(scored.r.gradNorm, 5);
      expect(own.r.extra.ppo_kl).toBe(0);
      expect(maxAbs(own.w, scored.w)).toBeLessThan(1e-5);
      own.old.forEach((lp, i) => expect(maxAbs(lp, scored.old[i]!)).toBeLessThan(1e-5));
      expect(own.r.entropy!.length).toBeGreaterThan(0);
    }
  }, 60_000);

  it('scores in input order, as the main thread alone does', async () => {
    const xs = samples();
    const local = (s: { ids: number[] }[]) => scoreSamples(model, s, 0, 4096);
    const shared = await pool.score(model, xs, 0, 4096, 1, local);
    const alone = await local(xs);
    xs.forEach((_, i) => shared.logProbs[i]!.forEach((lp, t) => expect(lp).toBeCloseTo(alone.logProbs[i]![t]!, 5)));
  }, 60_000);

  it('a shared rollout covers every group once, numbered and seeded as the whole request', async () => {
    const req: RolloutRequest = {
      env: 'sokoban',
      envConfig: {},
      seeds: [11, 22, 33, 44, 55],
      groupSize: 2,
      split: 'train',
      settings: { ...rolloutSettingsFor('sokoban'), maxTurns: 1 },
    };
    const trajs = await pool.rollout(model, tokenizer, req, { maxNewTokens: 8, temperature: 1, topP: 1 }, new Rng(4));
    expect(trajs).toHaveLength(10);
    for (let g = 0; g < 5; g++) {
      const group = trajs.filter((t) => t.group === g);
      expect(group.map((t) => t.indexInGroup)).toEqual([0, 1]);
      for (const t of group) expect(t.seed).toBe(req.seeds[g]);
    }
    const again = await pool.rollout(model, tokenizer, req, { maxNewTokens: 8, temperature: 1, topP: 1 }, new Rng(4));
    expect(again.map((t) => t.ids)).toEqual(trajs.map((t) => t.ids));
  }, 180_000);

  it('a stop reaches the worker thread between tokens: the rollout ends with StopRequested long before a full one would', async () => {
    const req: RolloutRequest = {
      env: 'sokoban',
      envConfig: {},
      seeds: [101, 102, 103, 104],
      groupSize: 2,
      split: 'train',
      settings: { ...rolloutSettingsFor('sokoban'), maxTurns: 2 },
    };
    const sampling = { maxNewTokens: 60, temperature: 1, topP: 1 };
    const t0 = Date.now();
    await pool.rollout(model, tokenizer, req, sampling, new Rng(9));
    const full = Date.now() - t0;
    const abort = new AbortController();
    let abortedAt = 0;
    const run = pool.rollout(model, tokenizer, req, sampling, new Rng(9), undefined, abort.signal);
    setTimeout(() => {
      abortedAt = Date.now();
      abort.abort('cancelled by user');
    }, full / 10);
    await expect(run).rejects.toMatchObject({ name: 'StopRequested', reason: 'cancelled by user' });
    // the same machine, the same work: both threads stopped long before the end of their shares
    expect(Date.now() - abortedAt).toBeLessThan(full / 2);
  }, 180_000);
});

const maxAbs = (a: number[], b: number[]) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
