import { describe, expect, it } from 'vitest';
import { defaultArchiveStep } from '../src/index.js';

describe('defaultArchiveStep', () => {
  it('serves the latest complete step, else the latest step, else none', () => {
    const files = [
      { step: 4, kind: 'policy.safetensors' },
      { step: 4, kind: 'state.json' },
      { step: 8, kind: 'policy.safetensors' }, // step 8 is still being written
    ];
    expect(defaultArchiveStep(files)).toBe(4);
    expect(defaultArchiveStep([...files, { step: 8, kind: 'state.json' }])).toBe(8);
    expect(defaultArchiveStep(files.filter((f) => f.kind !== 'state.json'))).toBe(8);
    expect(defaultArchiveStep([])).toBeUndefined();
  });
});
