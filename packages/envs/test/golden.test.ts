import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createEnv, renderSnapshot } from '../src/index.js';

/** Golden renders of seeds 0–9. Regenerate deliberately with UPDATE_GOLDEN=1 after an intended change. */
const CASES: Record<string, { env: string; config: Record<string, unknown> }> = {
  'sokoban-6x6-1box': { env: 'sokoban', config: {} },
  'sokoban-8x8-2box': { env: 'sokoban', config: { rows: 8, cols: 8, numBoxes: 2, searchDepth: 10 } },
  'frozenlake-4x4': { env: 'frozenlake', config: {} },
  bandit: { env: 'bandit', config: {} },
};
const file = fileURLToPath(new URL('./golden/renders.json', import.meta.url));

function current(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, c] of Object.entries(CASES)) {
    const env = createEnv(c.env, c.config);
    out[name] = Array.from({ length: 10 }, (_, seed) => env.reset(seed));
  }
  return out;
}

describe('golden renders (seeds 0–9)', () => {
  const now = current();
  if (process.env.UPDATE_GOLDEN) writeFileSync(file, JSON.stringify(now, null, 2) + '\n');
  const golden = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string[]>;
  for (const name of Object.keys(CASES)) {
    it(name, () => expect(now[name]).toEqual(golden[name]));
  }

  it('snapshots redraw the same text without re-simulating', () => {
    for (const c of Object.values(CASES)) {
      const env = createEnv(c.env, c.config);
      for (let seed = 0; seed < 10; seed++) {
        const obs = env.reset(seed);
        const snap = JSON.parse(JSON.stringify(env.snapshot()));
        expect(renderSnapshot(snap)).toBe(c.config.observationFormat ? renderSnapshot(snap) : obs);
      }
    }
  });
});
