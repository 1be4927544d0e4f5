import { describe, expect, it } from 'vitest';
import { learningRateAt, type LrSchedule } from '../src/train/lr-schedule.js';

const at = (s: Partial<LrSchedule>, steps: number[]) =>
  steps.map((step) => learningRateAt(1, step, { type: 'constant', warmupSteps: 0, minRatio: 0, horizon: 10, ...s }));

describe('learning-rate schedule', () => {
  it('constant keeps the peak, after a linear warm-up when one is set', () => {
    expect(at({}, [1, 5, 50])).toEqual([1, 1, 1]);
    expect(at({ warmupSteps: 4 }, [1, 2, 4, 9])).toEqual([0.25, 0.5, 1, 1]);
  });

  it('linear decays from the end of warm-up to minRatio at the horizon, then stays there', () => {
    expect(at({ type: 'linear', warmupSteps: 2, horizon: 6 }, [1, 2, 3, 4, 6, 20])).toEqual([0.5, 1, 0.75, 0.5, 0, 0]);
    expect(at({ type: 'linear', minRatio: 0.1, horizon: 11 }, [0, 11])).toEqual([1, 0.1]);
  });

  it('cosine is at half its range midway and at minRatio from the horizon on', () => {
    const [start, mid, end, after] = at({ type: 'cosine', minRatio: 0.2, horizon: 10 }, [0, 5, 10, 30]);
    expect(start).toBeCloseTo(1, 12);
    expect(mid).toBeCloseTo(0.6, 12);
    expect(end).toBeCloseTo(0.2, 12);
    expect(after).toBeCloseTo(0.2, 12);
  });
});
