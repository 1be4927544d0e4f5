import { describe, expect, it } from 'vitest';
import { actionShares } from '../src/train/metrics.js';

describe('actionShares', () => {
  it('gives each executed action its share of all actions', () => {
    expect(actionShares(['Down', 'Down', 'Left', 'Down'], 'val')).toEqual({ 'val/action_share/Down': 0.75, 'val/action_share/Left': 0.25 });
  });

  it('reports nothing for a batch without actions', () => {
    expect(actionShares([], 'train')).toEqual({});
  });
});
