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
 * Stable-Baselines3's identity tests (a Bandit, a 2×2 FrozenLake and a one-push Sokoban room, each from a
 * base pretrained on random choices): each case trains from a base that is not at the answer, on
 * several seeds, and must reach its pass mark on validation (not training) within its step budget. A
 * case stops as soon as it passes. A flipped sign (the "must fail" twin below) or the old action-word
 * credit, which zeroed the decision, keeps the Bandit short of its mark; the context a reply is trained
 * on is checked by rollout.test.ts, which re-scores every sampled reply.
 */

const BASES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bases');
const BANDIT_BASE = path.join(BASES, 'bandit-random-arm');
const LAKE_BASE = path.join(BASES, 'frozenlake-2x2-random');
const SOKOBAN_BASE = path.join(BASES, 'sokoban-push-random');

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

/** One test per case and seed: `what` on at least the pass mark of validation within the case's steps. */
function describeCases(title: string, env: string, what: string, cases: Case[], more?: () => void): void {
  describe(title, () => {
    beforeAll(async () => {
      await initBackend('wasm');
    });

    for (const c of cases)
      for (const seed of c.seeds)
        it(`${c.name}, seed ${seed}: ${what} on ≥ ${100 * c.passMark}% of validation within ${c.overrides.training!.steps} steps`, async () => {
          const r = await learn(c, seed);
          console.log(`${env} ${c.name}, seed ${seed}: validation ${r.curve}`);
          expect(r.best, `validation curve ${r.curve}`).toBeGreaterThanOrEqual(c.passMark);
        }, 600_000);
    more?.();
  });
}

/** Every case's bar: 90% on validation, on both training seeds. */
const PASS = { passMark: 0.9, seeds: [1, 2] };

/** A task's recipe: 8 groups × 8 a step, lr 1e-3 constant, one epoch, validation on 32 seeds every 2 steps. */
const recipe =
  (task: { env: RunConfigOverrides['env']; base: string; maxTurns?: number; steps: number }) =>
  (algorithm: RunConfigOverrides['algorithm'], extra: RunConfigOverrides = {}): RunConfigOverrides => ({
    env: task.env,
    model: { base: task.base },
    rollout: {
      envGroups: 8,
      groupSize: 8,
      maxNewTokens: 48,
      temperature: 1,
      ...(task.maxTurns ? { maxTurns: task.maxTurns } : {}),
      validation: { size: 32, every: 2, beforeTraining: true },
    },
    filter: { ratio: 1 },
    ppo: { miniBatchSize: 32, microBatchSize: 32, epochs: 1, actorLr: 1e-3, criticLr: 1e-3, lrSchedule: { type: 'constant' } },
    ...extra,
    algorithm: { whitenAdvantages: false, ...algorithm },
    training: { steps: task.steps },
  });

/** Bandit from the random-arm base (19% high arm on the validation seeds), 12 steps. */
const bandit = recipe({ env: { name: 'bandit', config: {} }, base: BANDIT_BASE, steps: 12 });

const BANDIT_CASES: (Case & { family: Estimator })[] = [
  {
    name: 'quick-cpu (turn_return, action-word credit)',
    family: 'turn_return',
    preset: 'quick-cpu',
    overrides: bandit({}),
    ...PASS,
  },
  {
    // std-normalised GRPO weighs every group alike, so the many groups whose risky pulls all paid 0 pull towards the
    // safe arm when the risky one pays a quarter of the time (the bias Dr.GRPO removes): its case pays half the time
    name: 'GRPO, std-normalised (the risky arm pays half the time)',
    family: 'grpo',
    overrides: bandit({ advEstimator: 'grpo', grpoNormByStd: true }, { env: { name: 'bandit', config: { highRiskProb: 0.5 } } }),
    ...PASS,
  },
  { name: 'Dr.GRPO', family: 'grpo', overrides: bandit({ advEstimator: 'grpo', grpoNormByStd: false }), ...PASS },
  {
    name: 'PPO, GAE with a critic',
    family: 'gae',
    overrides: bandit({ advEstimator: 'gae', gamma: 1, lambda: 1 }),
    ...PASS,
  },
  { name: 'GiGPO', family: 'gigpo', overrides: bandit({ advEstimator: 'gigpo' }), ...PASS },
];

describeCases('learnability: Bandit from a random-arm base', 'Bandit', 'high arm chosen', BANDIT_CASES, () => {
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

/**
 * FrozenLake on one 2×2 lake, still ice: the start top left, a hole below it, the goal diagonally
 * across, so Down first falls in and only Right then Down arrives. From a base pretrained on random
 * moves (16% on validation), up to 3 turns, 16 steps: the first move's credit has to come from the
 * turn that reaches the goal (under the sparse reward) or from the shaped step rewards (quick-cpu).
 */
const lake = recipe({
  // the base reads the bare grid it was pretrained on (quick-cpu's own FrozenLake lists coordinates above it)
  env: { name: 'frozenlake', config: { map: ['SF', 'HG'], successRate: 1, maxSteps: 6, observationFormat: 'grid' } },
  base: LAKE_BASE,
  maxTurns: 3,
  steps: 16,
});

const LAKE_CASES: (Case & { family: Estimator })[] = [
  // quick-cpu's FrozenLake setting shapes each move's reward by the goal distance
  {
    name: 'quick-cpu (shaped, turn_return)',
    family: 'turn_return',
    preset: 'quick-cpu',
    overrides: lake({}),
    ...PASS,
  },
  {
    name: 'Dr.GRPO (sparse)',
    family: 'grpo',
    overrides: lake({ advEstimator: 'grpo', grpoNormByStd: false }),
    ...PASS,
  },
  { name: 'GiGPO (sparse)', family: 'gigpo', overrides: lake({ advEstimator: 'gigpo' }), ...PASS },
];

describeCases('learnability: a 2×2 FrozenLake from a random-move base', 'FrozenLake', 'goal reached', LAKE_CASES);

/**
 * Sokoban in one room: the box sits between the player and its target, so Right, Right solves it and
 * nothing else does within the 4 moves allowed. From a base pretrained on random moves in that room
 * (14% on validation), 12 steps, with the solver-distance shaping both cases use (the base reads the
 * coordinate listing above the grid, as quick-cpu's Sokoban does).
 */
const PUSH_ROOM = ['######', '#____#', '#PX_O#', '#____#', '#____#', '######'];
const push = recipe({
  env: {
    name: 'sokoban',
    config: { level: PUSH_ROOM, maxSteps: 4, observationFormat: 'grid_coord', rewardShaping: 'solver_distance' },
  },
  base: SOKOBAN_BASE,
  steps: 12,
});

const SOKOBAN_CASES: (Case & { family: Estimator })[] = [
  {
    name: 'quick-cpu (shaped, turn_return)',
    family: 'turn_return',
    preset: 'quick-cpu',
    overrides: push({}),
    ...PASS,
  },
  { name: 'GiGPO (shaped)', family: 'gigpo', overrides: push({ advEstimator: 'gigpo' }), ...PASS },
  {
    // the teacher's replies at the states the policy visits, beside quick-cpu's own credit
    name: 'quick-cpu with on-policy solver distillation',
    family: 'turn_return',
    preset: 'quick-cpu',
    overrides: push({ solverDistill: { coef: 1, turns: 32 } }),
    ...PASS,
  },
];

describeCases('learnability: one Sokoban push from a random-move base', 'Sokoban', 'room solved', SOKOBAN_CASES);

/**
 * Countdown on one fixed easy instance (2 and 3, target 6): only a product reaches it, so a base pretrained on
 * random equations over the two numbers (about a third right on validation) has to learn to multiply. One turn,
 * one action, 16 steps, RAGEN's reward (1 for a correct equation, 0.1 for a wrong but well-formed one).
 */
const sum = recipe({
  env: { name: 'countdown', config: { instance: { numbers: [2, 3], target: 6 } } },
  base: path.join(BASES, 'countdown-random'),
  steps: 16,
});

const COUNTDOWN_CASES: Case[] = [
  { name: 'quick-cpu (turn_return)', preset: 'quick-cpu', overrides: sum({}), ...PASS },
  { name: 'Dr.GRPO', overrides: sum({ advEstimator: 'grpo', grpoNormByStd: false }), ...PASS },
];

describeCases('learnability: Countdown on one easy instance from a random-equation base', 'Countdown', 'target reached', COUNTDOWN_CASES);
