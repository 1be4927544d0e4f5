import { describe, expect, it } from 'vitest';
import { buildRunConfig, estimateRunSeconds, estimateSourceText, type DurationEstimate } from '../src/index.js';

const quick = buildRunConfig('quick-cpu', { env: { name: 'sokoban' } });
const measured = (o: Partial<DurationEstimate>): DurationEstimate => ({
  preset: 'quick-cpu',
  source: 'runs',
  stepSecondsPer1k: 5,
  validationSecondsPer1k: 1,
  steps: 240,
  runs: 3,
  workers: ['box-1'],
  slowWorkers: [],
  ...o,
});

describe('a run’s duration from per-token rates', () => {
  it('adds the steps’ and the validations’ reply budgets at their rates', () => {
    // quick-cpu: 80 steps of 32 × 2 × 96 tokens; 17 validations (every 5 steps, and before training) of 64 × 96
    expect(estimateRunSeconds(quick)).toBeCloseTo(((80 * 6144 + 17 * 6144) * 2.4) / 1000, 9);
    expect(estimateRunSeconds(quick, measured({}))).toBeCloseTo((80 * 6144 * 5 + 17 * 6144 * 1) / 1000, 9);
  });

  it('scales a measured rate to a config with more groups or longer replies', () => {
    const wider = buildRunConfig('quick-cpu', { env: { name: 'sokoban' }, rollout: { envGroups: 64 } });
    const rates = measured({ validationSecondsPer1k: 0 });
    expect(estimateRunSeconds(wider, rates)).toBeCloseTo(2 * estimateRunSeconds(quick, rates), 9);
  });

  it('says where the figure comes from', () => {
    expect(estimateSourceText(measured({ source: 'workers', steps: 40, workers: ['box-1', 'box-2'] }))).toBe(
      'from 40 recent quick-cpu steps on workers box-1, box-2',
    );
    expect(estimateSourceText(measured({}))).toBe('from the last 3 quick-cpu runs on this deployment (240 steps)');
    expect(estimateSourceText(measured({ runs: 1, steps: 1 }))).toBe('from the last quick-cpu run on this deployment (1 step)');
    expect(estimateSourceText(measured({ source: 'static', steps: 0, runs: 0 }))).toBe(
      'rough guess: no quick-cpu run measured yet (a fixed figure for two idle CPU cores)',
    );
  });
});
