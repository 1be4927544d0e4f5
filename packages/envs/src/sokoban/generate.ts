import { Rng } from '../rng.js';

/** Cell codes of gym-sokoban: the room structure uses 0–2, the room state 0–5. */
export const WALL = 0;
export const FLOOR = 1;
export const TARGET = 2;
export const BOX_ON_TARGET = 3;
export const BOX = 4;
export const PLAYER = 5;

/** Up, Down, Left, Right as (row, col) deltas. */
export const DELTAS: readonly (readonly [number, number])[] = [
  [-1, 0],
  [1, 0],
  [0, -1],
  [0, 1],
];

export interface Room {
  rows: number;
  cols: number;
  /** Fixed structure: WALL, FLOOR or TARGET per cell, row-major. */
  structure: Uint8Array;
  /** Movable state: WALL, FLOOR, TARGET, BOX_ON_TARGET, BOX or PLAYER per cell, row-major. */
  state: Uint8Array;
}

export interface GenerateOptions {
  rows: number;
  cols: number;
  numBoxes: number;
  /** Depth limit of the reverse-play search (RAGEN/gym-sokoban `search_depth`). */
  searchDepth: number;
  /** Stop the reverse-play search after this many explored states (gym-sokoban: 300000). */
  maxExploredStates: number;
  /** Random-walk steps of the topology generator; gym-sokoban uses int(1.7 * (rows + cols)). */
  numGenSteps?: number;
  /** Probability of changing direction at each random-walk step. */
  pChangeDirections?: number;
  /** Topologies tried before giving up with a score of 0. */
  tries?: number;
  /** RAGEN's extra random player walk after reverse play. */
  randomPlayerMoves?: boolean;
  /**
   * States the reverse-play searches may still explore, shared across tries (and by the caller
   * across reseeds): generation past it throws GenerationBudgetExceeded instead of running on.
   */
  budget?: StateBudget;
}

/** A count of reverse-play states left: deterministic, so a seed fails or succeeds alike everywhere. */
export interface StateBudget {
  remaining: number;
}

/** The five 3×3 floor masks of the gym-sokoban topology generator. */
const MASKS: readonly (readonly number[])[] = [
  [0, 0, 0, 1, 1, 1, 0, 0, 0],
  [0, 1, 0, 0, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 1, 1, 0],
  [0, 0, 0, 0, 1, 1, 0, 1, 0],
];
const WALK_DIRECTIONS: readonly (readonly [number, number])[] = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
];

// The WHATWG decoder of browsers and Node; this package compiles without DOM or Node types.
declare const TextDecoder: new (label: string) => { decode(input: Uint8Array): string };
/** Room states as strings for the explored set: one char per cell (codes 0–5 decode to U+0000–U+0005). */
const CELL_CODES = new TextDecoder('latin1');

export class GenerationFailed extends Error {}

/**
 * Reverse-play work one reset may do, in explored states × room cells: 32 M is 125,000 states of a
 * 16×16 room, about 1.5 s on a busy 2-core machine, and far above what rooms up to 10×10 use.
 */
export const GENERATION_WORK_LIMIT = 32_000_000;

/**
 * Room generation one rollout may do at once (its resets run back to back, holding the worker's
 * event loop): 4 resets' worth, about 6 s on a busy 2-core machine, so a cancel lands within 10 s.
 */
export const ROLLOUT_GENERATION_LIMIT = 4 * GENERATION_WORK_LIMIT;

/** The states one reset may explore in a rows × cols room (all tries and reseeds together). */
export function generationStateBudget(rows: number, cols: number): number {
  return Math.floor(GENERATION_WORK_LIMIT / (rows * cols));
}

/**
 * Searches a reset's budget must leave room for: in large rooms a deep search often ends with every
 * box still on its target (score 0), and generation tries another topology or seed.
 */
export const SEARCHES_PER_RESET = 8;

/** The largest search (explored states) a config may ask for in a rows × cols room. */
export function searchStateLimit(rows: number, cols: number): number {
  return Math.floor(generationStateBudget(rows, cols) / SEARCHES_PER_RESET);
}

/**
 * The most states one reverse-play search of this config can explore: its maxExploredStates, or
 * fewer where the room's interior (player cell × box cells) or the depth limit allow fewer.
 */
export function worstCaseExploredStates(
  opts: Pick<GenerateOptions, 'rows' | 'cols' | 'numBoxes' | 'searchDepth' | 'maxExploredStates'>,
): number {
  const interior = (opts.rows - 2) * (opts.cols - 2);
  let placements = interior;
  for (let k = 0; k < opts.numBoxes; k++) placements = (placements * (interior - 1 - k)) / (k + 1);
  // the search explores depth levels 0 … searchDepth − 2, four moves at each
  const byDepth = opts.searchDepth < 20 ? (4 ** (opts.searchDepth - 1) - 1) / 3 : Infinity;
  return Math.min(opts.maxExploredStates, Math.max(0, Math.round(placements)), byDepth);
}

/** Generation explored more states than its budget allows: the config asks for more than a reset may cost. */
export class GenerationBudgetExceeded extends Error {
  /** The config setting to lower. */
  readonly setting = 'maxExploredStates';
}

/** Random-walk topology: stamps 3×3 floor masks along a walk, then walls the border. */
export function roomTopology(rng: Rng, rows: number, cols: number, numSteps: number, pChange: number): Uint8Array {
  const level = new Uint8Array(rows * cols);
  let dir = rng.choice(WALK_DIRECTIONS);
  let r = rng.int(1, rows - 1);
  let c = rng.int(1, cols - 1);
  for (let s = 0; s < numSteps; s++) {
    if (rng.float() < pChange) dir = rng.choice(WALK_DIRECTIONS);
    r = Math.max(Math.min(r + dir[0], rows - 2), 1);
    c = Math.max(Math.min(c + dir[1], cols - 2), 1);
    const mask = rng.choice(MASKS);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        if (mask[i * 3 + j]) level[(r - 1 + i) * cols + (c - 1 + j)] = FLOOR;
      }
    }
  }
  for (let i = 0; i < rows; i++) {
    level[i * cols] = WALL;
    level[i * cols + cols - 1] = WALL;
  }
  for (let j = 0; j < cols; j++) {
    level[j] = WALL;
    level[(rows - 1) * cols + j] = WALL;
  }
  return level;
}

function floorCells(room: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < room.length; i++) if (room[i] === FLOOR) out.push(i);
  return out;
}

/** Player on a random floor cell, then each box (as a target: the solved state) on another. */
export function placeBoxesAndPlayer(rng: Rng, room: Uint8Array, numBoxes: number): void {
  const free = floorCells(room);
  if (free.length <= numBoxes + 1) {
    throw new GenerationFailed(`not enough free cells (${free.length}) for a player and ${numBoxes} boxes`);
  }
  room[rng.choice(free)] = PLAYER;
  for (let n = 0; n < numBoxes; n++) room[rng.choice(floorCells(room))] = TARGET;
}

interface SearchState {
  explored: Set<string>;
  bestScore: number;
  bestState: Uint8Array | null;
  bestMapping: Map<number, number> | null;
  numBoxes: number;
  maxExplored: number;
  budget: StateBudget | undefined;
}

function displacement(mapping: Map<number, number>, cols: number): number {
  let score = 0;
  for (const [target, box] of mapping) {
    score += Math.abs(Math.floor(target / cols) - Math.floor(box / cols)) + Math.abs((target % cols) - (box % cols));
  }
  return score;
}

function countCode(state: Uint8Array, code: number): number {
  let n = 0;
  for (let i = 0; i < state.length; i++) if (state[i] === code) n++;
  return n;
}

/**
 * Depth-first reverse play from the solved state, pulling boxes away from their targets.
 * Score of a state = box swaps × summed box→target Manhattan distance, counted only when
 * every target is empty. Faithful to gym-sokoban: the recursion passes the caller's
 * `lastPull` down, so every pull counts as a swap.
 */
function reverseSearch(
  s: SearchState,
  state: Uint8Array,
  structure: Uint8Array,
  cols: number,
  mapping: Map<number, number>,
  boxSwaps: number,
  lastPull: number,
  ttl: number,
): void {
  ttl -= 1;
  if (ttl <= 0 || s.explored.size >= s.maxExplored) return;
  const key = CELL_CODES.decode(state);
  if (s.explored.has(key)) return;
  let score = boxSwaps * displacement(mapping, cols);
  if (countCode(state, TARGET) !== s.numBoxes) score = 0;
  if (score > s.bestScore) {
    s.bestScore = score;
    s.bestState = state;
    s.bestMapping = mapping;
  }
  s.explored.add(key);
  if (s.budget && --s.budget.remaining < 0) {
    throw new GenerationBudgetExceeded(
      'room generation explored more states than its budget; lower maxExploredStates, numBoxes or the room size',
    );
  }
  const player = state.indexOf(PLAYER);
  for (const [dr, dc] of DELTAS) {
    const dest = player + dr * cols + dc;
    // A blocked move leaves this state, already explored: gym-sokoban's call for it returns at once.
    if (state[dest] !== FLOOR && state[dest] !== TARGET) continue;
    const next = state.slice();
    let nextMapping = mapping;
    let pulled = lastPull;
    next[player] = structure[player]!;
    next[dest] = PLAYER;
    const behind = player - dr * cols - dc;
    if (next[behind] === BOX || next[behind] === BOX_ON_TARGET) {
      next[player] = BOX_ON_TARGET;
      next[behind] = structure[behind]!;
      nextMapping = new Map(mapping);
      for (const [target, box] of nextMapping) {
        if (box === behind) {
          nextMapping.set(target, player);
          pulled = target;
        }
      }
    }
    reverseSearch(s, next, structure, cols, nextMapping, pulled !== lastPull ? boxSwaps + 1 : boxSwaps, lastPull, ttl);
  }
}

/** RAGEN's extra random player walk: up to `maxSteps` moves onto free cells, no revisits. */
function randomPlayerWalk(rng: Rng, state: Uint8Array, structure: Uint8Array, cols: number, moveProb: number): void {
  if (rng.float() > moveProb) return;
  let player = state.indexOf(PLAYER);
  const visited = new Set([player]);
  for (let steps = 0; steps < 3; steps++) {
    const options = DELTAS.map(([dr, dc]) => player + dr * cols + dc).filter(
      (p) => (state[p] === FLOOR || state[p] === TARGET) && !visited.has(p),
    );
    if (options.length === 0) break;
    const next = rng.choice(options);
    state[player] = structure[player]!;
    state[next] = PLAYER;
    player = next;
    visited.add(player);
    if (rng.float() > 0.5) break;
  }
}

/**
 * RAGEN's Sokoban room generator (gym-sokoban's DeepMind-style generator plus RAGEN's
 * extra player walk). Throws GenerationFailed when every topology scored 0.
 */
export function generateRoom(rng: Rng, opts: GenerateOptions): Room {
  const { rows, cols, numBoxes } = opts;
  const numSteps = opts.numGenSteps ?? Math.floor(1.7 * (rows + cols));
  const tries = opts.tries ?? 4;
  let lastError: Error | null = null;
  for (let t = 0; t < tries; t++) {
    const room = roomTopology(rng, rows, cols, numSteps, opts.pChangeDirections ?? 0.35);
    try {
      placeBoxesAndPlayer(rng, room, numBoxes);
    } catch (e) {
      lastError = e as Error;
      continue;
    }
    const structure = room.map((v) => (v === PLAYER ? FLOOR : v));
    const start = room.map((v) => (v === TARGET ? BOX : v));
    const mapping = new Map<number, number>();
    structure.forEach((v, i) => v === TARGET && mapping.set(i, i));
    const search: SearchState = {
      explored: new Set(),
      bestScore: -1,
      bestState: null,
      bestMapping: null,
      numBoxes,
      maxExplored: opts.maxExploredStates,
      budget: opts.budget,
    };
    reverseSearch(search, start, structure, cols, mapping, 0, -1, opts.searchDepth);
    if (search.bestScore > 0 && search.bestState) {
      const state = search.bestState.map((v) => (v === BOX_ON_TARGET ? BOX : v));
      if (opts.randomPlayerMoves ?? true) {
        const moveProb = displacement(search.bestMapping ?? mapping, cols) === 1 ? 0.8 : 0.5;
        randomPlayerWalk(rng, state, structure, cols, moveProb);
      }
      return { rows, cols, structure, state };
    }
  }
  throw lastError ?? new GenerationFailed('generated room with score 0');
}
