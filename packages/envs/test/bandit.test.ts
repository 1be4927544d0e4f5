import { describe, expect, it } from 'vitest';
import { BanditEnv } from '../src/index.js';

describe('bandit', () => {
  it('shows two named arms in an order shuffled by the seed', () => {
    const env = new BanditEnv();
    let dragonFirst = 0;
    for (let seed = 0; seed < 1000; seed++) {
      env.reset(seed);
      expect([...env.actions].sort()).toEqual(['Dragon', 'Phoenix']);
      if (env.actions[0] === 'Dragon') dragonFirst++;
    }
    expect(dragonFirst).toBeGreaterThan(430);
    expect(dragonFirst).toBeLessThan(570);
  });

  it('low-risk arm always pays 0.1; high-risk pays 1.0 a quarter of the time', () => {
    const env = new BanditEnv();
    let paid = 0;
    const n = 4000;
    for (let seed = 0; seed < n; seed++) {
      env.reset(seed);
      expect(env.step('phoenix')).toMatchObject({ reward: 0.1, done: true, success: false });
      env.reset(seed);
      const r = env.step(' Dragon ');
      expect([0, 1]).toContain(r.reward);
      expect(r.success).toBe(true);
      paid += r.reward;
    }
    expect(Math.abs(paid / n - 0.25)).toBeLessThan(4 * Math.sqrt((0.25 * 0.75) / n));
  });

  it('streams of one seed share the arms but draw their own payouts (a group compares arms, not one coin flip)', () => {
    const env = new BanditEnv();
    env.reset(7);
    const arms = [...env.actions];
    let paid = 0;
    for (let stream = 0; stream < 400; stream++) {
      env.reset(7, stream);
      expect(env.actions).toEqual(arms);
      paid += env.step('Dragon').reward;
    }
    // one shared draw would give 0 or 400
    expect(paid).toBeGreaterThan(60);
    expect(paid).toBeLessThan(140);
    // stream 0 is the seed's own draw
    env.reset(7);
    const own = env.step('Dragon').reward;
    env.reset(7, 0);
    expect(env.step('Dragon').reward).toBe(own);
  });

  it('uses the test pair and configurable payouts', () => {
    const env = new BanditEnv({ split: 'test', lowRiskReward: 0.15 });
    env.reset(3);
    expect([...env.actions].sort()).toEqual(['Librarian', 'Trader']);
    expect(env.step('Trader').reward).toBe(0.15);
    expect(env.render()).toBe('Trader: 0.15 points');
  });

  it('an unknown arm is invalid and leaves the episode open', () => {
    const env = new BanditEnv();
    env.reset(0);
    expect(env.step('Unicorn')).toMatchObject({ actionValid: false, done: false });
    expect(env.done).toBe(false);
  });
});
