import { describe, expect, it } from 'vitest';
import { Rng } from '../src/rng.js';
import { World } from '../src/diagnostics/index.js';
import { GenerationBudgetExceeded, SokobanEnv, generateRoom, getEnvDefinition, solveSokoban, type SokobanSnapshot } from '../src/index.js';

const board = (fixed: string[], boxes: [number, number][], player: [number, number]): SokobanSnapshot => ({
  env: 'sokoban',
  fixed,
  boxes,
  player,
  steps: 0,
  done: false,
  success: false,
});
const ROOM = ['######', '#____#', '#____#', '#___O#', '#____#', '######'];

describe('sokoban dynamics', () => {
  it('moves the player onto floor with the step penalty', () => {
    const env = new SokobanEnv();
    env.restore(board(ROOM, [[2, 2]], [1, 1]));
    const r = env.step('Down');
    expect(r).toMatchObject({ reward: -0.1, done: false, actionValid: true, actionEffective: true });
    expect(env.snapshot().player).toEqual([2, 1]);
  });

  it('does not move into walls, and a wall step still costs -0.1', () => {
    const env = new SokobanEnv();
    env.restore(board(ROOM, [[2, 2]], [1, 1]));
    const r = env.step('Up');
    expect(r).toMatchObject({ reward: -0.1, actionValid: true, actionEffective: false });
    expect(env.snapshot().player).toEqual([1, 1]);
  });

  it('pushes a box, cannot push two boxes or into a wall', () => {
    const env = new SokobanEnv({ numBoxes: 2 });
    env.restore(
      board(
        ROOM,
        [
          [2, 2],
          [2, 3],
        ],
        [2, 1],
      ),
    );
    expect(env.step('right').actionEffective).toBe(false);
    env.restore(board(ROOM, [[1, 2]], [2, 2]));
    expect(env.step('UP').actionEffective).toBe(false);
    env.restore(board(ROOM, [[2, 2]], [2, 1]));
    expect(env.step('Right').actionEffective).toBe(true);
    expect(env.snapshot()).toMatchObject({ boxes: [[2, 3]], player: [2, 2] });
  });

  it('pays +1 onto a target, +10 when solved, and ends the episode', () => {
    const env = new SokobanEnv();
    env.restore(board(ROOM, [[2, 4]], [1, 4]));
    const r = env.step('Down');
    expect(r.reward).toBeCloseTo(-0.1 + 1 + 10);
    expect(r).toMatchObject({ done: true, success: true });
    expect(env.render().split('\n')[3]).toBe('#___√#');
  });

  it('pays -1 when a box leaves a target (two boxes, one on target)', () => {
    const env = new SokobanEnv({ numBoxes: 2 });
    const fixed = ['######', '#_O__#', '#____#', '#___O#', '#____#', '######'];
    env.restore(
      board(
        fixed,
        [
          [3, 4],
          [2, 2],
        ],
        [3, 3],
      ),
    );
    const r = env.step('Right');
    expect(r.actionEffective).toBe(false);
    env.restore(
      board(
        fixed,
        [
          [3, 4],
          [2, 2],
        ],
        [2, 4],
      ),
    );
    const off = env.step('Down');
    expect(off.reward).toBeCloseTo(-0.1 - 1);
    expect(off.success).toBe(false);
  });

  it('renders the paper symbols, including player on target', () => {
    const env = new SokobanEnv();
    env.restore(board(ROOM, [[2, 2]], [3, 4]));
    expect(env.render()).toBe(['######', '#____#', '#_X__#', '#___S#', '#____#', '######'].join('\n'));
  });

  it('ignores unknown actions without using a step', () => {
    const env = new SokobanEnv();
    env.restore(board(ROOM, [[2, 2]], [1, 1]));
    expect(env.step('Jump')).toMatchObject({ actionValid: false, actionEffective: false, reward: 0 });
    expect(env.snapshot().steps).toBe(0);
  });

  it('ends after maxSteps primitive actions', () => {
    const env = new SokobanEnv({ maxSteps: 3 });
    env.restore(board(ROOM, [[2, 2]], [1, 1]));
    env.step('Up');
    env.step('Up');
    expect(env.step('Up')).toMatchObject({ done: true, success: false });
  });

  it('grid_coord observation lists coordinates then the grid', () => {
    const env = new SokobanEnv({ observationFormat: 'grid_coord' });
    env.restore(board(ROOM, [[2, 2]], [1, 1]));
    const obs = env.render();
    expect(obs).toContain('Targets: (3, 4)');
    expect(obs).toContain('Boxes: (2, 2)');
    expect(obs).toContain('Player: (1, 1)');
    expect(obs.endsWith(['######', '#P___#', '#_X__#', '#___O#', '#____#', '######'].join('\n'))).toBe(true);
  });
});

describe('sokoban reward shaping (solver distance)', () => {
  const shaped = () => new SokobanEnv({ rewardShaping: 'solver_distance' });
  it('a move one closer to the solution pays +1 on top of the step penalty, one away −1, a wall bump only the penalty', () => {
    const env = shaped();
    // Box at (2, 4) above the target (3, 4): the solution is Right, Down.
    env.restore(board(ROOM, [[2, 4]], [1, 3]));
    expect(env.step('Right').reward).toBeCloseTo(-0.1 + 1);
    env.restore(board(ROOM, [[2, 4]], [1, 3]));
    expect(env.step('Left').reward).toBeCloseTo(-0.1 - 1);
    env.restore(board(ROOM, [[2, 4]], [1, 3]));
    expect(env.step('Up').reward).toBeCloseTo(-0.1);
  });
  it('over an optimal solution the shaping adds exactly the start distance (it telescopes)', () => {
    const env = shaped();
    for (const seed of [0, 1, 2, 3]) {
      env.reset(seed);
      const plan = solveSokoban(env.snapshot())!;
      const total = plan.reduce((sum, a) => sum + env.step(a).reward, 0);
      expect(env.success).toBe(true);
      expect(total).toBeCloseTo(plan.length * (1 - 0.1) + 1 + 10);
    }
  });
  it('a push into a dead end costs one move per cell of the room, times the scale', () => {
    const env = new SokobanEnv({ rewardShaping: 'solver_distance', shapingScale: 0.5 });
    env.restore(board(ROOM, [[2, 2]], [3, 2]));
    const d0 = solveSokoban(env.snapshot())!.length;
    const r = env.step('Up'); // the box goes against the top wall; the target is in row 3
    expect(solveSokoban(env.snapshot())).toBeNull();
    expect(r.reward).toBeCloseTo(-0.1 + 0.5 * (d0 - 36));
  });
  it('is off by default: the paper reward', () => {
    const env = new SokobanEnv();
    env.restore(board(ROOM, [[2, 4]], [1, 3]));
    expect(env.step(solveSokoban(env.snapshot())![0]!).reward).toBeCloseTo(-0.1);
  });
});

describe('sokoban generation', () => {
  it('is deterministic per seed and varies across seeds', () => {
    const a = new SokobanEnv();
    const b = new SokobanEnv();
    const maps = new Set<string>();
    for (let seed = 0; seed < 50; seed++) {
      expect(a.reset(seed)).toBe(b.reset(seed));
      maps.add(a.render());
    }
    expect(maps.size).toBeGreaterThan(40);
  });

  it('generates rooms with one player, the configured boxes and matching targets, walled border', () => {
    const env = new SokobanEnv();
    for (let seed = 0; seed < 100; seed++) {
      env.reset(seed);
      const s = env.snapshot();
      expect(s.boxes).toHaveLength(1);
      expect(s.fixed.join('').split('O').length - 1).toBe(1);
      expect(s.fixed[0]).toBe('######');
      expect(s.fixed[5]).toBe('######');
      expect(s.fixed.every((row) => row.startsWith('#') && row.endsWith('#'))).toBe(true);
      expect(env.success).toBe(false);
    }
  });

  it('every one of 1,000 generated 6×6 puzzles is solvable, and the solution solves it', () => {
    const env = new SokobanEnv();
    for (let seed = 0; seed < 1000; seed++) {
      env.reset(seed);
      const plan = solveSokoban(env.snapshot());
      expect(plan, `seed ${seed}`).not.toBeNull();
      expect(plan!.length).toBeGreaterThan(0);
      let last;
      for (const a of plan!) last = env.step(a);
      expect(last!.success, `seed ${seed}`).toBe(true);
    }
  });

  it('8×8 rooms with 2 boxes generate and are solvable', () => {
    const env = new SokobanEnv({ rows: 8, cols: 8, numBoxes: 2 });
    for (let seed = 0; seed < 60; seed++) {
      env.reset(seed);
      expect(env.snapshot().boxes).toHaveLength(2);
      expect(solveSokoban(env.snapshot()), `seed ${seed}`).not.toBeNull();
    }
  });
});

describe('sokoban fixed level', () => {
  const LEVEL = ['######', '#____#', '#PX_O#', '#____#', '#____#', '######'];

  it('is the room of every seed, and is played like a generated one', () => {
    const env = new SokobanEnv({ level: LEVEL, maxSteps: 4 });
    for (const seed of [0, 9, 4242]) expect(env.reset(seed)).toBe(LEVEL.join('\n'));
    env.step('Right');
    expect(env.snapshot().boxes).toEqual([[2, 3]]);
    expect(env.step('Right')).toMatchObject({ done: true, success: true });
    // A played episode leaves the level itself untouched for the next reset.
    expect(env.reset(1)).toBe(LEVEL.join('\n'));
  });

  it('a level that is not a playable room is refused, naming the field', () => {
    for (const level of [
      ['######', '#____#', '#PX_O#', '#___#', '#____#', '######'], // ragged
      ['######', '#____#', '#_X_O#', '#____#', '#____#', '######'], // no player
      ['######', '#P___#', '#PX_O#', '#____#', '#____#', '######'], // two players
      ['######', '#____#', '#PXXO#', '#____#', '#____#', '######'], // boxes ≠ targets
      ['######', '#____#', '#P__√#', '#____#', '#____#', '######'], // already solved
      ['#####', '#___#', '#PXO#', '#___#', '#####'], // 5×5 under the default 6×6
      ['######', '#____#', '#PY_O#', '#____#', '#____#', '######'], // unknown symbol
    ])
      expect(() => new SokobanEnv({ level })).toThrow(/level/);
    expect(() => new SokobanEnv({ level: ['#####', '#___#', '#PXO#', '#___#', '#####'], rows: 5, cols: 5 })).not.toThrow();
  });
});

describe('sokoban generation budget', () => {
  // The config that once held the API's event loop for 49 s: every value inside the field bounds.
  const HEAVY = { rows: 16, cols: 16, numBoxes: 4, searchDepth: 1000, maxExploredStates: 1_000_000 };

  it('the config schema refuses a room generation that could outrun a reset, naming what to lower', () => {
    const r = getEnvDefinition('sokoban').configSchema.safeParse(HEAVY);
    expect(r.success).toBe(false);
    expect(r.error!.issues).toHaveLength(1);
    expect(r.error!.issues[0]!.path).toEqual(['maxExploredStates']);
    expect(r.error!.issues[0]!.message).toMatch(/lower maxExploredStates to 15625 or less/);
  });

  it('keeps the defaults and small rooms at any maxExploredStates, where the room bounds the search', () => {
    const schema = getEnvDefinition('sokoban').configSchema;
    expect(schema.safeParse({}).success).toBe(true);
    expect(schema.safeParse({ rows: 8, cols: 8, numBoxes: 2 }).success).toBe(true);
    expect(schema.safeParse({ rows: 6, cols: 6, numBoxes: 2, maxExploredStates: 1_000_000 }).success).toBe(true);
    expect(schema.safeParse({ ...HEAVY, maxExploredStates: 15_625 }).success).toBe(true);
  });

  it('stops a search past its state budget with GenerationBudgetExceeded (not a reseed)', () => {
    const budget = { remaining: 500 };
    expect(() => generateRoom(new Rng(1), { ...HEAVY, budget })).toThrow(GenerationBudgetExceeded);
    expect(budget.remaining).toBe(-1);
  });

  it('the largest 16×16 room the schema admits resets within seconds', () => {
    const env = new SokobanEnv({ ...HEAVY, maxExploredStates: 15_625 });
    const started = performance.now();
    env.reset(1);
    expect(env.snapshot().boxes).toHaveLength(4);
    // 0.5 s on average, up to 2 s, on a busy 2-core machine; before the budget, the 1,000,000-state config took 49 s
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('a stored large room can still be simulated by the reasoning checks (no generation there)', () => {
    const env = new SokobanEnv({ rows: 12, cols: 12, numBoxes: 3, maxExploredStates: 5_000 });
    env.reset(3);
    const worlds = new World(env.snapshot()).simulate(['Up', 'Left']);
    expect(worlds).toHaveLength(2);
  });
});
