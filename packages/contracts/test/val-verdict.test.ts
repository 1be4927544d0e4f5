import { describe, expect, it } from 'vitest';
import { valEpisodes, valVerdict } from '../src/index.js';

const at = (step: number, value: number) => ({ step, value });

describe('valVerdict', () => {
  it('calls a change within the noise of 64 episodes no clear change (14.1% → 20.3%)', () => {
    // noise: q₁ = 10/66, q₂ = 14/66; 2·√(q₁(1−q₁)/64 + q₂(1−q₂)/64) = 0.13594
    const v = valVerdict(at(0, 9 / 64), at(20, 13 / 64), 64);
    expect(v.verdict).toBe('no_clear_change');
    expect(v.change).toBeCloseTo(0.0625, 10);
    expect(v.noise).toBeCloseTo(0.13594, 4);
    expect(v.reason).toBeNull();
  });

  it('calls a rise beyond the noise improved (14.1% → 40.6%)', () => {
    // q₂ = 27/66: noise 2·√(0.0020087 + 0.0037771) = 0.15213 < 0.2656
    const v = valVerdict(at(0, 9 / 64), at(20, 26 / 64), 64);
    expect(v.verdict).toBe('improved');
    expect(v.noise).toBeCloseTo(0.15213, 4);
  });

  it('calls a fall beyond the noise got worse (50% → 20.3%)', () => {
    // q₁ = 33/66 = 0.5: noise 2·√(0.25/64 + 0.0026113) = 0.16146 < 0.2969
    const v = valVerdict(at(0, 32 / 64), at(20, 13 / 64), 64);
    expect(v.verdict).toBe('got_worse');
    expect(v.change).toBeCloseTo(-0.296875, 10);
    expect(v.noise).toBeCloseTo(0.16146, 4);
  });

  it('gives 0% and 100% some noise: (x + 1)/(n + 2), never zero', () => {
    // 0/8 → 8/8: q = 0.1 and 0.9, noise 2·√(0.09/8 · 2) = 0.3 exactly
    expect(valVerdict(at(0, 0), at(10, 1), 8)).toMatchObject({ verdict: 'improved', change: 1 });
    expect(valVerdict(at(0, 0), at(10, 1), 8).noise).toBeCloseTo(0.3, 12);
    expect(valVerdict(at(0, 1), at(10, 1), 8)).toMatchObject({ verdict: 'no_clear_change', change: 0 });
    expect(valVerdict(at(0, 0), at(10, 0), 64).noise).toBeGreaterThan(0.04);
    // one episode each: even 0% → 100% is within what chance gives (q = 1/3, 2/3: noise 4/3)
    expect(valVerdict(at(0, 0), at(10, 1), 1).verdict).toBe('no_clear_change');
  });

  it('gives no verdict, with the reason, when the validations cannot be compared', () => {
    expect(valVerdict(null, null, 64)).toEqual({ verdict: null, change: null, noise: null, reason: 'no validation was logged' });
    expect(valVerdict(at(0, 0.2), at(0, 0.2), 64).reason).toBe('only one validation (step 0): nothing to compare it with');
    expect(valVerdict(at(0, 0.2), at(10, 0.3), null).reason).toBe('the number of episodes per validation is unknown');
    expect(valVerdict(at(0, 20), at(10, 30), 64).reason).toBe('val/success is not a share between 0 and 1');
  });
});

describe('valEpisodes', () => {
  it('reads rollout.validation.size, or null from a config that has none (a run trained elsewhere)', () => {
    expect(valEpisodes({ rollout: { validation: { size: 64 } } })).toBe(64);
    expect(valEpisodes({})).toBeNull();
    expect(valEpisodes(null)).toBeNull();
    expect(valEpisodes({ rollout: { validation: { size: '64' } } })).toBeNull();
  });
});
