import { z } from '../zod.js';
import { Rng, deriveSeed } from '../rng.js';
import { actionIndex, unchangedStep } from '../step.js';
import type { Env, SokobanSnapshot, StepResult } from '../types.js';
import { shapingScaleSchema } from '../shaping.js';
import { SOKOBAN_ACTIONS } from './actions.js';
import {
  BOX,
  BOX_ON_TARGET,
  DELTAS,
  FLOOR,
  GenerationFailed,
  PLAYER,
  TARGET,
  WALL,
  generateRoom,
  generationStateBudget,
  searchStateLimit,
  worstCaseExploredStates,
} from './generate.js';
import { solveSokoban } from './solver.js';
import { parseSokobanObservation } from './observation.js';

export const sokobanConfigSchema = z
  .object({
    rows: z.number().int().min(4).max(16).default(6).describe('Room height, walls included'),
    cols: z.number().int().min(4).max(16).default(6).describe('Room width, walls included'),
    numBoxes: z.number().int().min(1).max(4).default(1),
    searchDepth: z.number().int().min(2).max(1000).default(300).describe('Reverse-play search depth'),
    maxExploredStates: z.number().int().min(100).max(1_000_000).default(300_000),
    maxSteps: z.number().int().min(1).max(1000).default(100).describe('Primitive actions before the episode ends'),
    observationFormat: z.enum(['grid', 'grid_coord']).default('grid'),
    rewardShaping: z
      .enum(['none', 'solver_distance'])
      .default('none')
      .describe(
        'solver_distance adds shapingScale × (moves to solve before − after) to each step reward: potential-based shaping (Ng et al. 1999), which keeps the optimal policy',
      ),
    shapingScale: shapingScaleSchema,
    level: z
      .array(z.string().regex(/^[#_OX√PS]+$/, 'a level row holds only # _ O X √ P S'))
      .min(4)
      .max(16)
      .optional()
      .describe(
        "One room for every seed instead of a generated one, rows of the observation's symbols (# wall, _ floor, O target, X box, √ box on target, P player, S player on target); rows, cols and numBoxes must match it",
      ),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.level) {
      const room = levelSnapshot(c.level);
      const problem =
        typeof room === 'string'
          ? room
          : room.fixed.length !== c.rows || room.fixed[0]!.length !== c.cols || room.boxes.length !== c.numBoxes
            ? `a level of ${room.fixed.length}×${room.fixed[0]!.length} with ${room.boxes.length} box(es) needs rows ${room.fixed.length}, cols ${room.fixed[0]!.length} and numBoxes ${room.boxes.length}`
            : room.success
              ? 'the level is already solved'
              : null;
      if (problem) ctx.addIssue({ code: 'custom', path: ['level'], message: problem });
    }
    // A config whose searches could outrun the budget of a reset is refused up front.
    const limit = searchStateLimit(c.rows, c.cols);
    const states = worstCaseExploredStates(c);
    if (states > limit) {
      ctx.addIssue({
        code: 'custom',
        path: ['maxExploredStates'],
        message: `room generation may explore ${states} states per search of a ${c.rows}×${c.cols} room, more than a reset can afford; lower maxExploredStates to ${limit} or less (or use a smaller room, fewer boxes or a lower searchDepth)`,
      });
    }
  });
export type SokobanConfig = z.infer<typeof sokobanConfigSchema>;

export { SOKOBAN_ACTIONS };
export const SOKOBAN_LEGEND = '#: wall, _: empty, O: target, √: box on target, X: box, P: player, S: player on target';

/** Symbols for the room-state codes, with 6 = player on target. */
const SYMBOLS = ['#', '_', 'O', '√', 'X', 'P', 'S'];
const MAX_RESEEDS = 50;

/**
 * Rooms generated lately, by generation settings and seed. Generation is deterministic and the
 * costliest part of a reset, and a rollout resets groupSize environments on each seed.
 */
const recentRooms = new Map<string, { structure: Uint8Array; state: Uint8Array }>();
const RECENT_ROOMS = 512;

function generatedRoom(config: SokobanConfig, seed: number): { structure: Uint8Array; state: Uint8Array } {
  const { rows, cols, numBoxes, searchDepth, maxExploredStates } = config;
  const key = `${rows},${cols},${numBoxes},${searchDepth},${maxExploredStates},${seed}`;
  const known = recentRooms.get(key);
  if (known) return known;
  // One budget for every try and reseed, so no seed can make a reset run on (GenerationBudgetExceeded).
  const budget = { remaining: generationStateBudget(rows, cols) };
  // Like RAGEN, a seed whose generation fails is retried with a seed derived from it.
  let attemptSeed = seed;
  for (let attempt = 0; ; attempt++) {
    try {
      const room = generateRoom(new Rng(attemptSeed), { rows, cols, numBoxes, searchDepth, maxExploredStates, budget });
      if (recentRooms.size >= RECENT_ROOMS) recentRooms.delete(recentRooms.keys().next().value!);
      recentRooms.set(key, { structure: room.structure, state: room.state });
      return room;
    } catch (e) {
      if (!(e instanceof GenerationFailed) || attempt >= MAX_RESEEDS) throw e;
      attemptSeed = deriveSeed(seed, attempt + 1);
    }
  }
}

/** A fixed level read as the observation's grid is, or why it is not a room (one player, boxes as many as targets). */
export function levelSnapshot(level: readonly string[]): SokobanSnapshot | string {
  const read = parseSokobanObservation(level.join('\n'));
  if (!read.ok) return `the level is not a room: ${read.reason}`;
  const { fixed, boxes } = read.snapshot;
  const targets = fixed.join('').split('O').length - 1;
  if (boxes.length !== targets) return `a level has as many boxes as targets; this one has ${boxes.length} and ${targets}`;
  return read.snapshot;
}

export class SokobanEnv implements Env<SokobanSnapshot> {
  readonly name = 'sokoban';
  readonly actions = SOKOBAN_ACTIONS;
  readonly config: SokobanConfig;
  private structure: Uint8Array = new Uint8Array(0);
  private state: Uint8Array = new Uint8Array(0);
  private steps = 0;
  private boxesOnTarget = 0;
  private _done = false;
  /** Moves the solver needs from the current state (only kept when rewardShaping is on). */
  private distance = 0;
  /** The fixed level every reset restores, read once (the schema has checked it). */
  private readonly level: SokobanSnapshot | null;

  constructor(config: Partial<SokobanConfig> = {}) {
    this.config = sokobanConfigSchema.parse(config);
    this.level = this.config.level ? (levelSnapshot(this.config.level) as SokobanSnapshot) : null;
  }

  get done(): boolean {
    return this._done;
  }
  get success(): boolean {
    return this.boxesOnTarget === this.config.numBoxes;
  }

  reset(seed: number): string {
    if (this.level) {
      this.restore(this.level);
      return this.render();
    }
    const room = generatedRoom(this.config, seed);
    this.structure = room.structure.slice();
    this.state = room.state.slice();
    this.steps = 0;
    this._done = false;
    this.boxesOnTarget = countBoxesOnTarget(this.state);
    if (this.shaping) this.distance = this.distanceToSolve();
    return this.render();
  }

  private get shaping(): boolean {
    return this.config.rewardShaping === 'solver_distance';
  }

  /** Fewest moves to solve; a deadlock (or a room too big for the search budget) counts as one move per cell. */
  private distanceToSolve(): number {
    const plan = solveSokoban(this.snapshot(), { maxStates: 100_000 });
    return plan ? plan.length : this.config.rows * this.config.cols;
  }

  step(action: string): StepResult {
    const index = actionIndex(SOKOBAN_ACTIONS, action);
    if (index < 0 || this._done) return unchangedStep(this.render(), this._done, this.success, index >= 0);
    const { cols } = this.config;
    const [dr, dc] = DELTAS[index]!;
    const player = this.state.indexOf(PLAYER);
    const dest = player + dr * cols + dc;
    let moved = false;
    if (this.state[dest] === BOX || this.state[dest] === BOX_ON_TARGET) {
      const beyond = dest + dr * cols + dc;
      if (this.state[beyond] === FLOOR || this.state[beyond] === TARGET) {
        this.state[beyond] = this.structure[beyond] === TARGET ? BOX_ON_TARGET : BOX;
        moved = true;
      }
    } else if (this.state[dest] === FLOOR || this.state[dest] === TARGET) {
      moved = true;
    }
    if (moved) {
      this.state[player] = this.structure[player]!;
      this.state[dest] = PLAYER;
    }
    this.steps += 1;
    let reward = -0.1;
    const onTarget = countBoxesOnTarget(this.state);
    if (onTarget > this.boxesOnTarget) reward += 1;
    else if (onTarget < this.boxesOnTarget) reward -= 1;
    this.boxesOnTarget = onTarget;
    if (this.success) reward += 10;
    if (this.shaping && moved) {
      const before = this.distance;
      this.distance = this.distanceToSolve();
      reward += this.config.shapingScale * (before - this.distance);
    }
    this._done = this.success || this.steps >= this.config.maxSteps;
    return { observation: this.render(), reward, done: this._done, success: this.success, actionValid: true, actionEffective: moved };
  }

  instructions(): string {
    return (
      'You are solving the Sokoban puzzle. You are the player and you need to push all boxes to targets. ' +
      'When you are right next to a box, you can push it by moving in the same direction. ' +
      'You cannot push a box through a wall, and you cannot pull a box.'
    );
  }

  render(): string {
    return renderSokoban(this.snapshot(), this.config.observationFormat);
  }

  restore(s: SokobanSnapshot): void {
    const rows = s.fixed.length;
    const cols = s.fixed[0]!.length;
    if (rows !== this.config.rows || cols !== this.config.cols)
      throw new Error(`snapshot is ${rows}×${cols}, env is ${this.config.rows}×${this.config.cols}`);
    this.structure = new Uint8Array(rows * cols);
    s.fixed.forEach((row, r) =>
      [...row].forEach((ch, c) => (this.structure[r * cols + c] = ch === '#' ? WALL : ch === 'O' ? TARGET : FLOOR)),
    );
    this.state = this.structure.slice();
    for (const [r, c] of s.boxes) this.state[r * cols + c] = this.structure[r * cols + c] === TARGET ? BOX_ON_TARGET : BOX;
    this.state[s.player[0] * cols + s.player[1]] = PLAYER;
    this.steps = s.steps;
    this.boxesOnTarget = countBoxesOnTarget(this.state);
    this._done = s.done;
    if (this.shaping) this.distance = this.distanceToSolve();
  }

  snapshot(): SokobanSnapshot {
    const { rows, cols } = this.config;
    const fixed: string[] = [];
    const boxes: [number, number][] = [];
    let player: [number, number] = [0, 0];
    for (let r = 0; r < rows; r++) {
      let line = '';
      for (let c = 0; c < cols; c++) {
        const i = r * cols + c;
        line += SYMBOLS[this.structure[i]!];
        const v = this.state[i];
        if (v === BOX || v === BOX_ON_TARGET) boxes.push([r, c]);
        if (v === PLAYER) player = [r, c];
      }
      fixed.push(line);
    }
    return { env: 'sokoban', fixed, boxes, player, steps: this.steps, done: this._done, success: this.success };
  }
}

function countBoxesOnTarget(state: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < state.length; i++) if (state[i] === BOX_ON_TARGET) n++;
  return n;
}

/** Grid of the paper's symbols, drawn from a snapshot alone. */
export function sokobanGrid(s: SokobanSnapshot): string[] {
  const grid = s.fixed.map((row) => row.split(''));
  for (const [r, c] of s.boxes) grid[r]![c] = grid[r]![c] === 'O' ? '√' : 'X';
  const [pr, pc] = s.player;
  grid[pr]![pc] = grid[pr]![pc] === 'O' ? 'S' : 'P';
  return grid.map((row) => row.join(''));
}

export function renderSokoban(s: SokobanSnapshot, format: 'grid' | 'grid_coord' = 'grid'): string {
  const grid = sokobanGrid(s).join('\n');
  if (format === 'grid') return grid;
  const fmt = (cells: [number, number][]) => (cells.length ? cells.map(([r, c]) => `(${r}, ${c})`).join(', ') : 'none');
  const targets: [number, number][] = [];
  s.fixed.forEach((row, r) => [...row].forEach((ch, c) => ch === 'O' && targets.push([r, c])));
  const isTarget = ([r, c]: [number, number]) => s.fixed[r]![c] === 'O';
  const onTarget = isTarget(s.player);
  return [
    'Coordinates: ',
    `Board size: ${s.fixed.length} rows x ${s.fixed[0]!.length} cols (zero-indexed).`,
    `Targets: ${fmt(targets)}`,
    `Boxes: ${fmt(s.boxes.filter((b) => !isTarget(b)))}`,
    `Boxes on target: ${fmt(s.boxes.filter(isTarget))}`,
    `Player: ${onTarget ? 'none' : fmt([s.player])}`,
    `Player on target: ${onTarget ? fmt([s.player]) : 'none'}`,
    'Grid Map: ',
    grid,
  ].join('\n');
}
