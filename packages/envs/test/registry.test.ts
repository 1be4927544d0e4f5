import { describe, expect, it } from 'vitest';
import { BUILTIN_ENV_NAMES, createEnv, getEnvDefinition, listEnvs, registerEnv } from '../src/index.js';

describe('registry', () => {
  it('lists the built-in environments with config schemas whose defaults parse', () => {
    expect(listEnvs().map((e) => e.name)).toEqual(['sokoban', 'frozenlake', 'bandit', 'countdown']);
    expect(listEnvs().map((e) => e.name)).toEqual([...BUILTIN_ENV_NAMES]);
    expect(getEnvDefinition('sokoban').configSchema.parse({})).toMatchObject({
      rows: 6,
      cols: 6,
      numBoxes: 1,
      searchDepth: 300,
      maxSteps: 100,
    });
    expect(getEnvDefinition('frozenlake').configSchema.parse({})).toMatchObject({ size: 4, pFrozen: 0.8 });
    expect(getEnvDefinition('bandit').configSchema.parse({})).toMatchObject({ lowRiskReward: 0.1, highRiskProb: 0.25 });
  });

  it('rejects unknown environments and unknown config fields', () => {
    expect(() => createEnv('chess')).toThrow(/unknown environment "chess"/);
    expect(() => createEnv('sokoban', { size: 3 })).toThrow();
  });

  it('refuses a second registration under the same name', () => {
    expect(() => registerEnv(getEnvDefinition('bandit') as never)).toThrow(/already registered/);
  });
});
