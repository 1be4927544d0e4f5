import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readValidations, valVerdictLine } from '../src/cli/val-verdict-line.js';

describe("starpo train's verdict line", () => {
  it('says first → last validation success and whether the change is more than noise', () => {
    // 9/64 → 13/64: +6.2 points against ±13.6 (the two-proportion noise of valVerdict)
    expect(
      valVerdictLine(
        [
          { step: 0, value: 9 / 64 },
          { step: 40, value: 16 / 64 },
          { step: 80, value: 13 / 64 },
        ],
        64,
      ),
    ).toBe('validation success 14.1% → 20.3% (64 episodes each): no clear change (±13.6 points is noise)');
    expect(
      valVerdictLine(
        [
          { step: 0, value: 0 },
          { step: 10, value: 1 },
        ],
        8,
      ),
    ).toBe('validation success 0.0% → 100.0% (8 episodes each): improved (±30.0 points is noise)');
  });

  it('says why there is no verdict', () => {
    expect(valVerdictLine([], 64)).toBe('validation success: no verdict, no validation was logged');
    expect(valVerdictLine([{ step: 0, value: 0.25 }], 64)).toBe(
      'validation success 25.0%: no verdict, only one validation (step 0): nothing to compare it with',
    );
  });

  it("reads a run folder's validations in step order, a step logged again by a resume winning", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-verdict-'));
    try {
      expect(readValidations(dir)).toEqual([]);
      const lines = [
        { step: 0, time: 1, 'val/success': 0.1 },
        { step: 1, time: 2, 'train/success': 0.3 },
        { step: 5, time: 3, 'val/success': 0.2 },
        { step: 5, time: 4, 'val/success': 0.25 },
        { step: 3, time: 5, 'val/success': 0.15 },
      ];
      writeFileSync(path.join(dir, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      expect(readValidations(dir)).toEqual([
        { step: 0, value: 0.1 },
        { step: 3, value: 0.15 },
        { step: 5, value: 0.25 },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
