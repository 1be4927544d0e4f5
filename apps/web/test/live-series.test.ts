import type { RunMetricColumns } from '@starpo/contracts';
import { describe, expect, it } from 'vitest';
import { appendPoints, applyMetricEvents, lastStep } from '../lib/live-series';

const series = (steps: number[]) => ({ steps, values: steps.map((s) => s * 10), times: steps.map(() => 1) });

describe('appendPoints', () => {
  it('appends a later step and leaves the input untouched', () => {
    const before = series([0, 1, 2]);
    const after = appendPoints(before, [{ step: 3, value: 30, time: 5 }]);
    expect(after).toEqual({ steps: [0, 1, 2, 3], values: [0, 10, 20, 30], times: [1, 1, 1, 5] });
    expect(before).toEqual(series([0, 1, 2]));
  });

  it('replaces a step already present instead of adding it twice', () => {
    const after = appendPoints(series([0, 1, 2]), [
      { step: 2, value: 99, time: 7 },
      { step: 1, value: 11, time: 7 },
    ]);
    expect(after.steps).toEqual([0, 1, 2]);
    expect(after.values).toEqual([0, 11, 99]);
    expect(after.times).toEqual([1, 7, 7]);
  });

  it('inserts a late step in step order, and a batch in any order ends sorted', () => {
    const after = appendPoints(series([0, 4]), [
      { step: 6, value: 60, time: 2 },
      { step: 2, value: 20, time: 2 },
      { step: 5, value: 50, time: 2 },
      { step: 6, value: 61, time: 3 },
    ]);
    expect(after.steps).toEqual([0, 2, 4, 5, 6]);
    expect(after.values).toEqual([0, 20, 40, 50, 61]);
  });

  it('starts an empty series and returns the same object for no points', () => {
    const empty = { steps: [], values: [], times: [] };
    expect(appendPoints(empty, [])).toBe(empty);
    expect(appendPoints(empty, [{ step: 3, value: 1, time: 0 }]).steps).toEqual([3]);
  });
});

describe('applyMetricEvents', () => {
  const cols = (runId: string, key: string, steps: number[]): RunMetricColumns => ({ runId, key, ...series(steps) });

  it('extends the touched series, keeps the others as they were, and adds a new key at the end', () => {
    const a = cols('r1', 'loss', [0, 1]);
    const b = cols('r2', 'loss', [0]);
    const out = applyMetricEvents(
      [a, b],
      [
        { runId: 'r1', step: 2, values: { loss: 0.5, 'val/success': 0.25 } },
        { runId: 'r1', step: 1, values: { loss: 0.7 } }, // a catch-up repeating a step
      ],
      9,
    );
    expect(out[1]).toBe(b);
    expect(out[0]).not.toBe(a);
    expect(out[0]).toEqual({ runId: 'r1', key: 'loss', steps: [0, 1, 2], values: [0, 0.7, 0.5], times: [1, 9, 9] });
    expect(out[2]).toEqual({ runId: 'r1', key: 'val/success', steps: [2], values: [0.25], times: [9] });
    expect(a.steps).toEqual([0, 1]);
  });

  it('reads the last step a run has', () => {
    const all = [cols('r1', 'loss', [0, 7]), cols('r1', 'kl', [3]), cols('r10', 'loss', [50])];
    expect(lastStep(all, 'r1')).toBe(7);
    expect(lastStep(all, 'r2')).toBe(-1);
    expect(lastStep(undefined, 'r1')).toBe(-1);
  });
});
