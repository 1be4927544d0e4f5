import { Rng } from '@starpo/envs';
import { describe, expect, it } from 'vitest';
import { sampleToken } from '../src/policy/sampling.js';

/** The untempered distribution's entropy and a token's log-prob, computed the long way. */
function direct(logits: number[], token: number) {
  const max = Math.max(...logits);
  const logZ = max + Math.log(logits.reduce((a, l) => a + Math.exp(l - max), 0));
  const entropy = logits.reduce((h, l) => (l === -Infinity ? h : h - Math.exp(l - logZ) * (l - logZ)), 0);
  return { entropy, logProb: logits[token]! - logZ };
}

describe('sampleToken', () => {
  const rng = new Rng(3);
  const cases: [string, number[]][] = [
    ['uniform', new Array(566).fill(0.25)],
    ['peaked', Array.from({ length: 566 }, (_, i) => (i === 17 ? 40 : -3 + (i % 7) * 0.1))],
    ['large logits', Array.from({ length: 566 }, (_, i) => 1000 + Math.sin(i) * 4)],
    ['a masked logit', [2, -Infinity, 0.5, 1]],
  ];
  for (const [name, logits] of cases)
    it(`${name}: entropy and log-prob of the untempered distribution, at every temperature`, () => {
      for (const temperature of [0, 0.7, 1])
        for (const topP of [1, 0.9]) {
          const s = sampleToken(Float32Array.from(logits), temperature, topP, rng);
          const want = direct(Array.from(Float32Array.from(logits)), s.token);
          expect(s.entropy).toBeCloseTo(want.entropy, 9);
          expect(s.logProb).toBeCloseTo(want.logProb, 9);
          expect(s.entropy).toBeGreaterThanOrEqual(0);
          expect(logits[s.token]).not.toBe(-Infinity);
        }
    });
  it('a uniform distribution over n tokens has entropy log n', () => {
    expect(sampleToken(new Float32Array(566), 1, 1, rng).entropy).toBeCloseTo(Math.log(566), 12);
  });
});
