import { describe, expect, it } from 'vitest';
import {
  SCRATCH_BASE,
  defaultBase,
  PRESETS,
  PRESET_NAMES,
  ValidationError,
  applySetting,
  buildRunConfig,
  configDiff,
  describeEnvs,
  validateRunConfig,
} from '../src/index.js';

describe('RunConfig defaults', () => {
  it('are the paper’s (RAGEN v0423)', () => {
    const r = validateRunConfig({});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const c = r.config;
    expect(c.env).toEqual({
      name: 'sokoban',
      config: expect.objectContaining({ rows: 6, cols: 6, numBoxes: 1, searchDepth: 300, maxSteps: 100 }),
    });
    expect(c.rollout).toMatchObject({
      envGroups: 8,
      groupSize: 16,
      maxTurns: 5,
      maxActionsPerTurn: 5,
      maxActionsPerTraj: 10,
      temperature: 1,
      maxNewTokens: 400,
    });
    expect(c.rollout.validation).toEqual({ size: 256, seedBase: 123, temperature: 0.5, every: 10, beforeTraining: true });
    expect(c.algorithm).toMatchObject({ advEstimator: 'gae', gamma: 1, lambda: 1, highLevelGamma: 0.95, whitenAdvantages: true });
    expect(c.ppo).toMatchObject({
      clipRatioLow: 0.2,
      clipRatioHigh: 0.28,
      entropyCoef: 0.001,
      actorLr: 1e-6,
      criticLr: 1e-5,
      weightDecay: 0.01,
      gradClip: 1,
      valueClip: 0.5,
      miniBatchSize: 32,
      epochs: 1,
    });
    expect(c.ppo.kl.coef).toBe(0);
    expect(c.filter).toMatchObject({ metric: 'std', ratio: 0.25, includeZero: true });
    expect(c.earlyStopping).toMatchObject({
      emptyBatchSteps: 5,
      rewardStdWindow: 10,
      rewardStdFraction: 0.1,
      lowValSuccess: 0.01,
      lowValPatience: 5,
    });
    expect(c.format.formatPenalty).toBe(-0.1);
    expect(c.training.steps).toBe(200);
  });

  it('take the rollout limits from the environment (bandit: 1 turn, 1 action)', () => {
    const c = buildRunConfig(undefined, { env: { name: 'bandit' }, rollout: { groupSize: 16 } });
    expect(c.rollout).toMatchObject({ maxTurns: 1, maxActionsPerTurn: 1, maxActionsPerTraj: 1 });
    expect(c.env.config).toMatchObject({ lowRiskReward: 0.1 });
  });
});

describe('RunConfig validation', () => {
  it('lists every wrong field by path, with the reason', () => {
    const r = validateRunConfig({
      env: { name: 'sokoban', config: { rows: 2, colour: 'red' } },
      ppo: { clipRatioLow: 'big', actorLr: -1 },
      rollout: { envGroups: 0 },
      bogus: 1,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const paths = r.errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining(['env.config.rows', 'env.config', 'ppo.clipRatioLow', 'ppo.actorLr', 'rollout.envGroups', '(root)']),
    );
    expect(r.errors.find((e) => e.path === '(root)')!.message).toMatch(/unknown field\(s\): bogus/);
    expect(r.errors.find((e) => e.path === 'env.config')!.message).toMatch(/colour/);
    expect(r.errors.find((e) => e.path === 'ppo.clipRatioLow')!.message).toMatch(/number/i);
  });

  it('rejects unknown environments', () => {
    const r = validateRunConfig({ env: { name: 'chess' } });
    expect(!r.ok && r.errors).toEqual([{ path: 'env.name', message: expect.stringMatching(/unknown environment "chess"/) }]);
  });

  it('checks cross-field constraints', () => {
    const r = validateRunConfig({ rollout: { envGroups: 2, groupSize: 4 }, ppo: { miniBatchSize: 16, microBatchSize: 3 } });
    expect(!r.ok && r.errors.map((e) => e.path)).toEqual(['ppo.miniBatchSize', 'ppo.microBatchSize']);
    const g = validateRunConfig({ algorithm: { advEstimator: 'grpo' }, rollout: { groupSize: 1, envGroups: 64 } });
    expect(!g.ok && g.errors.map((e) => e.path)).toEqual(['rollout.groupSize']);
  });

  it('buildRunConfig throws a ValidationError listing the fields, and rejects unknown presets', () => {
    expect(() => buildRunConfig('starpo-ppo', { training: { steps: 0 } })).toThrow(ValidationError);
    try {
      buildRunConfig('nope');
    } catch (e) {
      expect((e as ValidationError).fields[0]!.path).toBe('preset');
    }
  });
});

describe('presets', () => {
  it('all build and differ where the paper says', () => {
    const built = Object.fromEntries(PRESET_NAMES.map((n) => [n, buildRunConfig(n)]));
    expect(built['starpo-ppo']).toMatchObject({
      algorithm: { advEstimator: 'gae' },
      ppo: { clipRatioHigh: 0.2, kl: { coef: 0.001, in: 'reward' } },
      filter: { ratio: 1 },
    });
    expect(built['starpo-grpo']).toMatchObject({
      algorithm: { advEstimator: 'grpo' },
      ppo: { kl: { coef: 0.001, in: 'loss' } },
      filter: { ratio: 1 },
    });
    expect(built['starpo-s-ppo']).toMatchObject({
      algorithm: { advEstimator: 'gae' },
      ppo: { clipRatioHigh: 0.28, kl: { coef: 0 } },
      filter: { ratio: 0.25 },
    });
    expect(built['starpo-s-grpo']).toMatchObject({ algorithm: { advEstimator: 'grpo' }, filter: { ratio: 0.25 } });
    expect(built.gigpo).toMatchObject({ algorithm: { advEstimator: 'gigpo', gamma: 0.95 } });
    expect(built['quick-cpu']).toMatchObject({
      model: { base: 'starpo-base/sokoban-tiny' },
      algorithm: {
        advEstimator: 'turn_return',
        highLevelGamma: 0,
        negativeAdvantageScale: 0,
        advantageClip: 3,
        turnCredit: 'action',
        groundedCreditOnly: true,
      },
      rollout: { envGroups: 32, groupSize: 2, temperature: 0.7 },
      filter: { ratio: 1 },
      ppo: {
        lossAggMode: 'seq-mean-token-mean',
        epochs: 2,
        miniBatchSize: 16,
        actorLr: 5e-4,
        entropyCoef: 0,
        lrSchedule: { type: 'cosine', warmupSteps: 0, minRatio: 0, horizonSteps: null },
      },
      training: { steps: 80 },
    });
    expect(Object.keys(PRESETS)).toEqual([...PRESET_NAMES]);
  });

  it("a preset's environment config applies to its environment only, and the user's wins", () => {
    expect(buildRunConfig('quick-cpu').env).toMatchObject({ name: 'sokoban', config: { observationFormat: 'grid_coord', rows: 6 } });
    expect(buildRunConfig('quick-cpu', { env: { name: 'sokoban', config: { rows: 7 } } }).env.config).toMatchObject({
      observationFormat: 'grid_coord',
      rows: 7,
    });
    expect(
      buildRunConfig('quick-cpu', { env: { name: 'sokoban', config: { observationFormat: 'grid' } } }).env.config.observationFormat,
    ).toBe('grid');
    // FrozenLake lists coordinates too (its shipped base reads them), and a from-scratch run keeps the bare grid
    expect(buildRunConfig('quick-cpu', { env: { name: 'frozenlake' } }).env.config.observationFormat).toBe('grid_coord');
    expect(
      buildRunConfig('starpo-s-grpo', { env: { name: 'frozenlake' }, model: { base: SCRATCH_BASE } }).env.config.observationFormat,
    ).toBe('grid');
    expect(buildRunConfig('quick-cpu').env.config.rewardShaping).toBe('solver_distance');
    expect(buildRunConfig('quick-cpu', { env: { name: 'frozenlake' } }).env.config.rewardShaping).toBe('goal_distance');
    expect(buildRunConfig('starpo-s-grpo').env.config.rewardShaping).toBe('none');
    // the shipped Sokoban base reads positions; from scratch the environment's own default stays
    expect(buildRunConfig('starpo-s-grpo').env.config.observationFormat).toBe('grid_coord');
    expect(buildRunConfig('starpo-s-grpo', { model: { base: SCRATCH_BASE } }).env.config.observationFormat).toBe('grid');
  });

  it('every preset starts from the shipped base of its environment unless the run names a base', () => {
    for (const preset of PRESET_NAMES) {
      expect(buildRunConfig(preset, { env: { name: 'sokoban' } }).model.base).toBe('starpo-base/sokoban-tiny');
      expect(buildRunConfig(preset, { env: { name: 'frozenlake' } }).model.base).toBe('starpo-base/frozenlake-tiny');
      expect(buildRunConfig(preset, { env: { name: 'bandit' } }).model.base).toBe(SCRATCH_BASE);
      expect(buildRunConfig(preset, { env: { name: 'sokoban' }, model: { base: 'starpo-tiny/nano' } }).model.base).toBe('starpo-tiny/nano');
    }
    expect(defaultBase('sokoban')).toBe('starpo-base/sokoban-tiny');
    // without a preset the overrides are the whole config: from scratch
    expect(buildRunConfig(undefined, { env: { name: 'sokoban' } }).model.base).toBe(SCRATCH_BASE);
  });

  it('user overrides win over the preset', () => {
    expect(buildRunConfig('quick-cpu', { training: { steps: 3 }, env: { name: 'frozenlake' } })).toMatchObject({
      training: { steps: 3 },
      env: { name: 'frozenlake' },
    });
  });
});

describe('helpers', () => {
  it('applySetting parses JSON values and dotted paths', () => {
    const o: Record<string, unknown> = {};
    applySetting(o, 'ppo.actorLr=3e-5');
    applySetting(o, 'env.name=frozenlake');
    applySetting(o, 'algorithm.whitenAdvantages=false');
    expect(o).toEqual({ ppo: { actorLr: 3e-5 }, env: { name: 'frozenlake' }, algorithm: { whitenAdvantages: false } });
    expect(() => applySetting(o, 'novalue')).toThrow(/path=value/);
  });

  it('configDiff lists changed leaves', () => {
    const a = buildRunConfig('starpo-s-ppo');
    const b = buildRunConfig('starpo-s-ppo', { ppo: { actorLr: 1e-4 } });
    expect(configDiff(b, a)).toEqual([{ path: 'ppo.actorLr', value: 1e-4, reference: 1e-6 }]);
  });

  it('configDiff flattens a section that only one side has into dotted leaves', () => {
    const ours = { ppo: { actorLr: 1e-6, kl: { coef: 0 } }, env: { name: 'sokoban' } };
    const elsewhere = { env: { name: 'sokoban' }, trainer: 'verl' };
    expect(configDiff(elsewhere, ours)).toEqual([
      { path: 'trainer', value: 'verl', reference: undefined },
      { path: 'ppo.actorLr', value: undefined, reference: 1e-6 },
      { path: 'ppo.kl.coef', value: undefined, reference: 0 },
    ]);
  });

  it('describeEnvs gives JSON schemas with defaults', () => {
    const envs = describeEnvs();
    expect(envs.map((e) => e.name)).toEqual(['sokoban', 'frozenlake', 'bandit', 'countdown']);
    const sok = envs[0]!;
    expect(sok.configSchema).toMatchObject({ type: 'object', properties: { rows: { type: 'integer', default: 6 } } });
    expect(sok.defaults).toMatchObject({ numBoxes: 1 });
  });
});

describe('an environment served through the protocol', () => {
  const remote = { url: 'http://127.0.0.1:8765' };
  it('takes quick-cpu with credit per turn: it names no actions ahead of its episodes', () => {
    expect(buildRunConfig('quick-cpu', { env: { name: 'lake-py', remote } }).algorithm.turnCredit).toBe('sum');
    expect(buildRunConfig('quick-cpu', { env: { name: 'frozenlake' } }).algorithm.turnCredit).toBe('action');
  });

  it('refuses credit per action word, naming the field', () => {
    expect(() => buildRunConfig('quick-cpu', { env: { name: 'lake-py', remote }, algorithm: { turnCredit: 'action' } })).toThrow(
      'algorithm.turnCredit: action needs the action names of a built-in environment; use sum or weakest with env.remote',
    );
  });
});
