import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRunConfig, type PresetName, type RunConfigOverrides } from '@starpo/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ESTIMATORS, type Estimator } from '../src/algo/estimators.js';
import { initBackend } from '../src/backend.js';
import { loadBaseModel } from '../src/bases/load.js';
import { train } from '../src/train/loop.js';
import { MemorySink } from '../src/train/sink.js';

/**
 * Tasks any correct policy-gradient update learns in about a minute on two cores, in the spirit of
 * Stable-Baselines3's identity tests: each case trains from a base that is not at the answer, on
 * several seeds, and must reach its pass mark on validation (not training) within its step budget. A
 * case stops as soon as it passes. A flipped sign (the "must fail" twin below) or the old action-word
 * credit, which zeroed the decision, keeps the Bandit short of its mark; the context a reply is trained
 * on is checked by rollout.test.ts, which re-scores every sampled reply.
 */

const BANDIT_BASE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bases', 'bandit-random-arm');

interface Case {
  name: string;
  preset?: PresetName;
  overrides: RunConfigOverrides;
  /** Validation success to reach (best over the run's validations). */
  passMark: number;
  seeds: number[];
}

interface Outcome {
  start: number;
  best: number;
  curve: string;
}

/** Trains `c` with `seed` until its validation success reaches the pass mark or its steps run out. */
async function learn(c: Case, seed: number, passMark = c.passMark): Promise<Outcome> {
  const config = buildRunConfig(c.preset, { ...c.overrides, training: { ...c.overrides.training, seed, checkpointEvery: 0 } });
  const key = `val/${config.env.name}/success`;
  const stop = new AbortController();
  const curve: [number, number][] = [];
  const sink = new (class extends MemorySink {
    override async metrics(step: number, m: Record<string, number>): Promise<void> {
      await super.metrics(step, m);
      if (m[key] === undefined) return;
      curve.push([step, m[key]]);
      if (m[key] >= passMark) stop.abort(new Error('pass mark reached'));
    }
  })();
  const base = loadBaseModel(config.model.base, seed);
  try {
    await train({ config, base, sink, signal: stop.signal });
  } finally {
    base.model.dispose();
  }
  return {
    start: curve[0]![1],
    best: Math.max(...curve.map(([, v]) => v)),
    curve: curve.map(([s, v]) => `${s}:${Math.round(100 * v)}%`).join(' '),
  };
}

/** Bandit from the random-arm base (19% high arm on the validation seeds): 8 groups × 8 pulls a step, 12 steps. */
const bandit = (algorithm: RunConfigOverrides['algorithm'], extra: RunConfigOverrides = {}): RunConfigOverrides => ({
  env: { name: 'bandit', config: {} },
  model: { base: BANDIT_BASE },
  rollout: {
    envGroups: 8,
    groupSize: 8,
    maxNewTokens: 48,
    temperature: 1,
    validation: { size: 32, every: 2, beforeTraining: true },
  },
  filter: { ratio: 1 },
  ppo: { miniBatchSize: 32, microBatchSize: 32, epochs: 1, actorLr: 1e-3, criticLr: 1e-3, lrSchedule: { type: 'constant' } },
  ...extra,
  algorithm: { whitenAdvantages: false, ...algorithm },
  training: { steps: 12 },
});

const BANDIT_CASES: (Case & { family: Estimator })[] = [
  {
    name: 'quick-cpu (turn_return, action-word credit)',
    family: 'turn_return',
    preset: 'quick-cpu',
    overrides: bandit({}),
    passMark: 0.9,
    seeds: [1, 2],
  },
  {
    // std-normalised GRPO weighs every group alike, so the many groups whose risky pulls all paid 0 pull towards the
    // safe arm when the risky one pays a quarter of the time (the bias Dr.GRPO removes): its case pays half the time
    name: 'GRPO, std-normalised (the risky arm pays half the time)',
    family: 'grpo',
    overrides: bandit({ advEstimator: 'grpo', grpoNormByStd: true }, { env: { name: 'bandit', config: { highRiskProb: 0.5 } } }),
    passMark: 0.9,
    seeds: [1, 2],
  },
  { name: 'Dr.GRPO', family: 'grpo', overrides: bandit({ advEstimator: 'grpo', grpoNormByStd: false }), passMark: 0.9, seeds: [1, 2] },
  {
    name: 'PPO, GAE with a critic',
    family: 'gae',
    overrides: bandit({ advEstimator: 'gae', gamma: 1, lambda: 1 }),
    passMark: 0.9,
    seeds: [1, 2],
  },
  { name: 'GiGPO', family: 'gigpo', overrides: bandit({ advEstimator: 'gigpo' }), passMark: 0.9, seeds: [1, 2] },
];

describe('learnability: Bandit from a random-arm base', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  for (const c of BANDIT_CASES)
    for (const seed of c.seeds)
      it(`${c.name}, seed ${seed}: high arm ≥ ${100 * c.passMark}% of validation within 12 steps`, async () => {
        const r = await learn(c, seed);
        console.log(`${c.name}, seed ${seed}: validation ${r.curve}`);
        expect(r.best, `validation curve ${r.curve}`).toBeGreaterThanOrEqual(c.passMark);
      }, 600_000);

  it('must fail: the same quick-cpu case with the advantage sign flipped stays short of the mark', async () => {
    const c = BANDIT_CASES[0]!;
    const original = ESTIMATORS[c.family];
    ESTIMATORS[c.family] = (samples, a) => {
      const e = original(samples, a);
      return { advantages: e.advantages.map((row) => row.map((v) => -v)), returns: e.returns };
    };
    try {
      const r = await learn(c, 1);
      console.log(`${c.name} with the sign flipped, seed 1: validation ${r.curve}`);
      expect(r.best, `validation curve ${r.curve}`).toBeLessThan(c.passMark);
    } finally {
      ESTIMATORS[c.family] = original;
    }
  }, 600_000);
});
