import { z } from '../zod.js';
import { Rng, chanceSeed } from '../rng.js';
import { actionIndex, unchangedStep } from '../step.js';
import type { Env, FrozenLakeSnapshot, StepResult } from '../types.js';
import { shapingScaleSchema } from '../shaping.js';
import { FROZENLAKE_ACTIONS, FROZENLAKE_DELTAS, lakeMove, slipOutcomes } from './moves.js';
import { solveFrozenLake } from './solver.js';

export const frozenLakeConfigSchema = z
  .object({
    size: z.number().int().min(2).max(12).default(4),
    pFrozen: z.number().gt(0).max(1).default(0.8).describe('Probability that a tile is frozen (paper: 0.8; RAGEN HEAD: 0.9)'),
    successRate: z
      .number()
      .gt(0)
      .max(1)
      .default(1 / 3)
      .describe('Probability that the intended move is taken; the rest is split between the two perpendicular moves. 1 = deterministic'),
    maxSteps: z.number().int().min(1).max(1000).default(100),
    rewardShaping: z
      .enum(['none', 'goal_distance'])
      .default('none')
      .describe(
        'goal_distance adds shapingScale × (moves to the goal before − after) to each step reward, a hole counting one move per tile: potential-based shaping (Ng et al. 1999), which keeps the optimal policy',
      ),
    shapingScale: shapingScaleSchema,
    observationFormat: z
      .enum(['grid', 'grid_coord'])
      .default('grid')
      .describe("grid_coord lists the player's, the goal's and the holes' coordinates above the grid (as RAGEN's CoordFrozenLake)"),
    map: z
      .array(z.string().regex(/^[SFHG]+$/, 'a map row holds only S, F, H and G'))
      .min(2)
      .max(12)
      .optional()
      .describe(
        "One layout for every seed, rows of S (start), F (ice), H (hole), G (goal), as gymnasium's desc (e.g. SFF FHF FFG); size and pFrozen are then unused",
      ),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (!c.map) return;
    const problem = lakeMapProblem(c.map);
    if (problem) ctx.addIssue({ code: 'custom', path: ['map'], message: problem });
  });
export type FrozenLakeConfig = z.infer<typeof frozenLakeConfigSchema>;

export const FROZENLAKE_LEGEND = 'P: player, _: empty, O: hole, G: goal, X: player in hole, √: player on goal';
/** i.i.d. frozen/hole tiles with a random distinct start and goal, resampled until a path exists. */
export function generateLakeMap(rng: Rng, size: number, pFrozen: number): string[] {
  for (;;) {
    const board = Array.from({ length: size }, () => Array.from({ length: size }, (): string => (rng.float() < pFrozen ? 'F' : 'H')));
    let sr: number, sc: number, gr: number, gc: number;
    do {
      sr = rng.int(0, size - 1);
      sc = rng.int(0, size - 1);
      gr = rng.int(0, size - 1);
      gc = rng.int(0, size - 1);
    } while (sr === gr && sc === gc);
    board[sr]![sc] = 'S';
    board[gr]![gc] = 'G';
    const map = board.map((row) => row.join(''));
    if (hasPath(map, [sr, sc])) return map;
  }
}

/** Why `map` is not a playable lake (square, one start, one goal, a path between them), or null. */
export function lakeMapProblem(map: readonly string[]): string | null {
  if (map.some((row) => row.length !== map.length)) return `a map is square: ${map.length} rows of ${map.length} tiles`;
  const count = (ch: string) => map.join('').split(ch).length - 1;
  if (count('S') !== 1 || count('G') !== 1) return 'a map has exactly one S (start) and one G (goal)';
  return hasPath(map, startOf(map)) ? null : 'no path from S to G around the holes';
}

/** Where the start tile S is. */
function startOf(map: readonly string[]): [number, number] {
  const r = map.findIndex((row) => row.includes('S'));
  return [r, map[r]!.indexOf('S')];
}

function hasPath(map: readonly string[], start: [number, number]): boolean {
  const size = map.length;
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length) {
    const [r, c] = stack.pop()!;
    if (seen.has(`${r},${c}`)) continue;
    seen.add(`${r},${c}`);
    for (const [dr, dc] of FROZENLAKE_DELTAS) {
      const nr = r + dr;
      const nc = c + dc;
      if (nr < 0 || nc < 0 || nr >= size || nc >= size) continue;
      if (map[nr]![nc] === 'G') return true;
      if (map[nr]![nc] !== 'H') stack.push([nr, nc]);
    }
  }
  return false;
}

export class FrozenLakeEnv implements Env<FrozenLakeSnapshot> {
  readonly name = 'frozenlake';
  readonly actions = FROZENLAKE_ACTIONS;
  readonly config: FrozenLakeConfig;
  private map: string[] = [];
  private player: [number, number] = [0, 0];
  private steps = 0;
  private _done = false;
  private slipRng = new Rng(0);

  constructor(config: Partial<FrozenLakeConfig> = {}) {
    this.config = frozenLakeConfigSchema.parse(config);
  }

  get done(): boolean {
    return this._done;
  }
  get success(): boolean {
    return this.tile() === 'G';
  }

  private tile(): string {
    return this.map[this.player[0]]?.[this.player[1]] ?? 'F';
  }

  reset(seed: number, stream = 0): string {
    this.map = this.config.map ? [...this.config.map] : generateLakeMap(new Rng(seed), this.config.size, this.config.pFrozen);
    this.player = startOf(this.map);
    this.slipRng = new Rng(chanceSeed(seed, 0x51, stream));
    this.steps = 0;
    this._done = false;
    return this.render();
  }

  /** Fewest moves to the goal on still ice; from a hole, one move per tile. */
  private distanceToGoal(): number {
    const path = this.tile() === 'H' ? null : solveFrozenLake(this.snapshot());
    return path ? path.length : this.map.length * this.map.length;
  }

  step(action: string): StepResult {
    const index = actionIndex(FROZENLAKE_ACTIONS, action);
    if (index < 0 || this._done) return unchangedStep(this.render(), this._done, this.success, index >= 0);
    const outcomes = slipOutcomes(index, this.config.successRate);
    let u = this.slipRng.float();
    let taken = outcomes[outcomes.length - 1]!.action;
    for (const o of outcomes) {
      if (u < o.p) {
        taken = o.action;
        break;
      }
      u -= o.p;
    }
    const before = this.player;
    const shaping = this.config.rewardShaping === 'goal_distance';
    const distanceBefore = shaping ? this.distanceToGoal() : 0;
    this.player = lakeMove(this.map.length, before, taken);
    this.steps += 1;
    const tile = this.tile();
    this._done = tile === 'G' || tile === 'H' || this.steps >= this.config.maxSteps;
    const shaped = shaping ? this.config.shapingScale * (distanceBefore - this.distanceToGoal()) : 0;
    return {
      observation: this.render(),
      reward: (tile === 'G' ? 1 : 0) + shaped,
      done: this._done,
      success: tile === 'G',
      actionValid: true,
      actionEffective: before[0] !== this.player[0] || before[1] !== this.player[1],
    };
  }

  instructions(): string {
    return (
      'You are solving the FrozenLake puzzle. Forbid the whole and go to the target. ' +
      'You may move to the unintended direction due to the slippery ice. ' +
      'Example answer format: <think>To forbid the hole and go to the target, I should go left then go up.</think><answer>Left || Up</answer>'
    );
  }

  render(): string {
    return renderFrozenLake(this.snapshot(), this.config.observationFormat);
  }

  restore(s: FrozenLakeSnapshot, seed = 0): void {
    this.map = [...s.map];
    this.player = [...s.player];
    this._done = s.done;
    this.steps = 0;
    this.slipRng = new Rng(chanceSeed(seed, 0x51));
  }

  snapshot(): FrozenLakeSnapshot {
    return { env: 'frozenlake', map: [...this.map], player: [...this.player], done: this._done, success: this.success };
  }
}

export function frozenLakeGrid(s: FrozenLakeSnapshot): string[] {
  return s.map.map((row, r) =>
    [...row]
      .map((ch, c) => {
        const here = s.player[0] === r && s.player[1] === c;
        if (ch === 'H') return here ? 'X' : 'O';
        if (ch === 'G') return here ? '√' : 'G';
        return here ? 'P' : '_';
      })
      .join(''),
  );
}

/** `grid`, or `grid_coord`: the cells a reply must reason about, as coordinates above the same grid (read as in Sokoban's grid_coord). */
export function renderFrozenLake(s: FrozenLakeSnapshot, format: 'grid' | 'grid_coord' = 'grid'): string {
  const grid = frozenLakeGrid(s).join('\n');
  if (format === 'grid') return grid;
  const cells = (ch: string) => s.map.flatMap((row, r) => [...row].flatMap((x, c) => (x === ch ? [`(${r}, ${c})`] : [])));
  const holes = cells('H');
  return [
    'Coordinates: ',
    `Board size: ${s.map.length} rows x ${s.map[0]!.length} cols (zero-indexed).`,
    `Player: (${s.player[0]}, ${s.player[1]})`,
    `Goal: ${cells('G').join(', ') || 'none'}`,
    `Holes: ${holes.length ? holes.join(', ') : 'none'}`,
    'Grid Map: ',
    grid,
  ].join('\n');
}
