import { describe, expect, it } from 'vitest';
import { estimateRemainingSeconds, progressLabel, validationsAfter, type RunProgress } from '../src/index.js';

const p = (o: Partial<RunProgress>): RunProgress => ({
  phase: 'rollout',
  step: 3,
  done: 0,
  total: 64,
  unit: 'episodes',
  startedAt: 0,
  at: 0,
  stepStartedAt: 0,
  stepSeconds: 50,
  validationSeconds: 90,
  ...o,
});

describe('run activity', () => {
  it('labels the phase as the run page shows it', () => {
    expect(progressLabel({ phase: 'validation', done: 23, total: 64, unit: 'episodes' })).toBe('validation 23/64 episodes');
    expect(progressLabel({ phase: 'checkpoint', done: 0, total: 0, unit: '' })).toBe('checkpoint');
  });

  it('counts the validations still due: every k steps and after the last', () => {
    expect(validationsAfter(0, 4, 5)).toBe(1); // only the final one
    expect(validationsAfter(2, 10, 5)).toBe(2); // steps 5 and 10
    expect(validationsAfter(5, 12, 5)).toBe(2); // 10 and the last (12)
    expect(validationsAfter(4, 4, 5)).toBe(0);
    expect(validationsAfter(0, 4, 0)).toBe(0);
  });

  it('estimates the time left from measured step and validation times', () => {
    // 2 of 4 steps done, 20 s into step 3: 2 steps (100 s) − 20 s + the final validation (90 s)
    expect(estimateRemainingSeconds({ currentStep: 2, totalSteps: 4, validationEvery: 5, progress: p({}), now: 20_000 })).toBe(170);
    // validating after step 4 of 4, 30 s in: 60 s left
    expect(
      estimateRemainingSeconds({
        currentStep: 4,
        totalSteps: 4,
        validationEvery: 5,
        progress: p({ phase: 'validation', step: 4, stepStartedAt: null }),
        now: 30_000,
      }),
    ).toBe(60);
    // nothing measured yet: no estimate rather than a wrong one
    expect(
      estimateRemainingSeconds({ currentStep: 0, totalSteps: 4, validationEvery: 5, progress: p({ stepSeconds: null }), now: 0 }),
    ).toBeNull();
    expect(estimateRemainingSeconds({ currentStep: 0, totalSteps: 4, validationEvery: 5, progress: null, now: 0 })).toBeNull();
  });
});
