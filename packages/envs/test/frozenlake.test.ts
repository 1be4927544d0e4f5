import { describe, expect, it } from 'vitest';
import {
  FrozenLakeEnv,
  lakeMove,
  lakePlan,
  parseFrozenLakeObservation,
  solveFrozenLake,
  solveSlipperyFrozenLake,
  type FrozenLakeSnapshot,
} from '../src/index.js';

const lake = (map: string[], player: [number, number]): FrozenLakeSnapshot => ({
  env: 'frozenlake',
  map,
  player,
  done: false,
  success: false,
});
const MAP = ['SFFF', 'FHFH', 'FFFH', 'HFFG'];

describe('frozenlake maps', () => {
  it('have distinct start and goal, a path between them, and ~80% frozen tiles', () => {
    const env = new FrozenLakeEnv();
    let frozen = 0;
    let tiles = 0;
    for (let seed = 0; seed < 500; seed++) {
      env.reset(seed);
      const s = env.snapshot();
      const flat = s.map.join('');
      expect(flat.split('S').length - 1).toBe(1);
      expect(flat.split('G').length - 1).toBe(1);
      expect(solveFrozenLake(s), `seed ${seed}`).not.toBeNull();
      frozen += flat.split('F').length - 1;
      tiles += flat.length - 2;
    }
    // Resampling until a path exists biases towards frozen tiles a little.
    expect(frozen / tiles).toBeGreaterThan(0.78);
    expect(frozen / tiles).toBeLessThan(0.88);
  });

  it('are deterministic per seed', () => {
    const a = new FrozenLakeEnv();
    const b = new FrozenLakeEnv();
    for (let seed = 0; seed < 30; seed++) expect(a.reset(seed)).toBe(b.reset(seed));
  });

  it('a fixed map (gymnasium desc) is the layout of every seed, its size taken from it', () => {
    const env = new FrozenLakeEnv({ map: ['SFF', 'FHF', 'FFG'], successRate: 1, rewardShaping: 'goal_distance' });
    for (const seed of [0, 7, 123]) expect(env.reset(seed)).toBe('P__\n_O_\n__G');
    expect(env.step('Right').reward).toBe(1);
    expect(env.step('Down').done).toBe(true); // the hole
    env.reset(1);
    for (const a of ['Down', 'Down', 'Right']) env.step(a);
    expect(env.step('Right')).toMatchObject({ done: true, success: true, reward: 2 });
  });

  it('a fixed map that is not a playable lake is refused, naming the field', () => {
    for (const map of [
      ['SF', 'FGF'],
      ['SFF', 'FFF', 'FFF'],
      ['SHF', 'HFF', 'FFG'],
      ['SX', 'FG'],
    ])
      expect(() => new FrozenLakeEnv({ map })).toThrow(/map/);
  });
});

describe('frozenlake reward shaping (goal distance)', () => {
  const shaped = () => new FrozenLakeEnv({ successRate: 1, rewardShaping: 'goal_distance' });
  it('pays +1 per move closer, 0 for a move against the border, the hole as one move per tile, and the goal on top', () => {
    const env = shaped();
    env.restore(lake(MAP, [0, 0])); // 6 moves from the goal
    expect(env.step('Right').reward).toBe(1);
    expect(env.step('Up').reward).toBe(0);
    expect(env.step('Down')).toMatchObject({ reward: 5 - 16, done: true });
    env.restore(lake(MAP, [3, 2]));
    expect(env.step('Right')).toMatchObject({ reward: 1 + 1, success: true });
  });
  it('is off by default', () => {
    const env = new FrozenLakeEnv({ successRate: 1 });
    env.restore(lake(MAP, [0, 0]));
    expect(env.step('Right').reward).toBe(0);
  });
});

describe('frozenlake dynamics', () => {
  it('deterministic ice moves exactly as asked; the border keeps the player in place', () => {
    const env = new FrozenLakeEnv({ successRate: 1 });
    env.restore(lake(MAP, [0, 0]));
    expect(env.step('Up')).toMatchObject({ actionEffective: false, reward: 0, done: false });
    expect(env.step('right')).toMatchObject({ actionEffective: true });
    expect(env.snapshot().player).toEqual([0, 1]);
  });

  it('falling into a hole ends with reward 0 and renders X', () => {
    const env = new FrozenLakeEnv({ successRate: 1 });
    env.restore(lake(MAP, [0, 1]));
    expect(env.step('Down')).toMatchObject({ reward: 0, done: true, success: false });
    expect(env.render().split('\n')[1]).toBe('_X_O');
  });

  it('reaching the goal pays 1 and renders √', () => {
    const env = new FrozenLakeEnv({ successRate: 1 });
    env.restore(lake(MAP, [3, 2]));
    expect(env.step('Right')).toMatchObject({ reward: 1, done: true, success: true });
    expect(env.render()).toBe(['____', '_O_O', '___O', 'O__√'].join('\n'));
  });

  it('slippery ice takes the intended move 1/3 of the time and each perpendicular 1/3', () => {
    // From the centre of an all-frozen lake, Down goes down (intended), left or right (perpendicular).
    const open = ['FFFFF', 'FFFFF', 'FFSFF', 'FFFFF', 'FFFFG'];
    const counts = { down: 0, left: 0, right: 0, other: 0 };
    const n = 6000;
    const env = new FrozenLakeEnv({ size: 5 });
    for (let seed = 0; seed < n; seed++) {
      env.restore(lake(open, [2, 2]), seed);
      env.step('Down');
      const [r, c] = env.snapshot().player;
      if (r === 3 && c === 2) counts.down++;
      else if (r === 2 && c === 1) counts.left++;
      else if (r === 2 && c === 3) counts.right++;
      else counts.other++;
    }
    const tol = 4 * Math.sqrt(((1 / 3) * (2 / 3)) / n); // four standard errors
    for (const k of ['down', 'left', 'right'] as const) expect(Math.abs(counts[k] / n - 1 / 3)).toBeLessThan(tol);
    expect(counts.other).toBe(0);
  });

  it('successRate 0.8 splits the rest between the two perpendiculars', () => {
    const open = ['FFFFF', 'FFFFF', 'FFSFF', 'FFFFF', 'FFFFG'];
    const env = new FrozenLakeEnv({ size: 5, successRate: 0.8 });
    let intended = 0;
    const n = 5000;
    for (let seed = 0; seed < n; seed++) {
      env.restore(lake(open, [2, 2]), seed);
      env.step('Left');
      if (env.snapshot().player[1] === 1) intended++;
    }
    expect(Math.abs(intended / n - 0.8)).toBeLessThan(4 * Math.sqrt(0.16 / n));
  });
});

describe('frozenlake solvers', () => {
  it('BFS finds the shortest safe path', () => {
    const plan = solveFrozenLake(lake(MAP, [0, 0]))!;
    expect(plan).toHaveLength(6);
    const env = new FrozenLakeEnv({ successRate: 1 });
    env.restore(lake(MAP, [0, 0]));
    let last;
    for (const a of plan) last = env.step(a);
    expect(last!.success).toBe(true);
  });

  it('value iteration: deterministic values are 1 where the goal is reachable; slippery values are lower', () => {
    const det = solveSlipperyFrozenLake(MAP, 1);
    expect(det.values[0]).toBeCloseTo(1);
    const slip = solveSlipperyFrozenLake(MAP, 1 / 3);
    expect(slip.values[0]).toBeGreaterThan(0);
    expect(slip.values[0]).toBeLessThan(1);
    const capped = solveSlipperyFrozenLake(MAP, 1 / 3, 10);
    expect(capped.values[0]).toBeLessThanOrEqual(slip.values[0]! + 1e-12);
    expect(slip.policy[15]).toBe('');
  });

  it('the value-iteration policy beats random play on slippery ice (simulated)', () => {
    const { policy } = solveSlipperyFrozenLake(MAP, 1 / 3);
    const env = new FrozenLakeEnv();
    let wins = 0;
    let randomWins = 0;
    for (let seed = 0; seed < 2000; seed++) {
      env.restore(lake(MAP, [0, 0]), seed);
      for (let t = 0; t < 100 && !env.done; t++) {
        const [r, c] = env.snapshot().player;
        env.step(policy[r * 4 + c]!);
      }
      if (env.success) wins++;
      env.restore(lake(MAP, [0, 0]), seed);
      for (let t = 0; t < 100 && !env.done; t++) env.step(['Left', 'Down', 'Right', 'Up'][(seed * 7 + t * 3) % 4]!);
      if (env.success) randomWins++;
    }
    expect(wins / 2000).toBeGreaterThan(randomWins / 2000 + 0.2);
  });

  it('lakePlan: the shortest path on still ice; on slippery ice the value-iteration moves, the second from where the first was meant to land', () => {
    const start = lake(MAP, [0, 0]);
    expect(lakePlan(start, 1, 10, 2)).toEqual(solveFrozenLake(start)!.slice(0, 2));
    const rate = 1 / 3;
    const plan = lakePlan(start, rate, 10, 2)!;
    expect(plan).toHaveLength(2);
    expect(plan[0]).toBe(solveSlipperyFrozenLake(MAP, rate, 10).policy[0]);
    const moves = ['Left', 'Down', 'Right', 'Up'];
    const [r, c] = lakeMove(4, [0, 0], moves.indexOf(plan[0]!));
    expect(plan[1]).toBe(solveSlipperyFrozenLake(MAP, rate, 9).policy[r * 4 + c]);
    // one move left: a plan of one move next to the goal, none where the goal is out of reach
    expect(lakePlan(lake(MAP, [3, 2]), rate, 1, 2)).toHaveLength(1);
    expect(lakePlan(start, rate, 1, 2)).toBeNull();
    expect(lakePlan(lake(MAP, [3, 3]), rate, 10, 2)).toBeNull();
  });

  it('grid_coord lists the player, the goal and the holes above the same grid, and reads back to the same board', () => {
    const env = new FrozenLakeEnv({ map: MAP, observationFormat: 'grid_coord' });
    const obs = env.reset(0);
    const holes = MAP.flatMap((row, r) => [...row].flatMap((ch, c) => (ch === 'H' ? [`(${r}, ${c})`] : [])));
    expect(obs).toContain('Player: (0, 0)');
    expect(obs).toContain('Goal: (3, 3)');
    expect(obs).toContain(`Holes: ${holes.join(', ')}`);
    expect(obs.endsWith(new FrozenLakeEnv({ map: MAP }).reset(0))).toBe(true);
    const back = parseFrozenLakeObservation(obs);
    expect(back.ok && back.snapshot.player).toEqual([0, 0]);
  });
});
