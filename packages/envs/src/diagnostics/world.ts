import { FrozenLakeEnv } from '../frozenlake/env.js';
import { SokobanEnv } from '../sokoban/env.js';
import type { EnvSnapshot, FrozenLakeSnapshot, SokobanSnapshot } from '../types.js';
import type { Dir, EntityType } from './claims.js';

export type Cell = [number, number];

export const DELTA: Record<Dir, Cell> = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };

const NAMES: Record<EntityType, string> = { player: 'player', box: 'box', target: 'target', hole: 'hole', goal: 'goal', wall: 'wall' };
export const entityName = (t: EntityType) => NAMES[t];
export const fmtCell = ([r, c]: Cell) => (Number.isNaN(c) ? `row ${r}` : Number.isNaN(r) ? `column ${c}` : `(${r}, ${c})`);
export const sameCell = (a: Cell, b: Cell) => a[0] === b[0] && a[1] === b[1];

function cellsOf(rows: string[], chars: string): Cell[] {
  const out: Cell[] = [];
  rows.forEach((row, r) => [...row].forEach((ch, c) => chars.includes(ch) && out.push([r, c])));
  return out;
}

/** What a grid state holds, read from a snapshot: where each kind of thing is. */
export class World {
  readonly rows: number;
  readonly cols: number;
  constructor(readonly snap: SokobanSnapshot | FrozenLakeSnapshot) {
    const grid = snap.env === 'sokoban' ? snap.fixed : snap.map;
    this.rows = grid.length;
    this.cols = grid[0]?.length ?? 0;
  }

  /** Kinds of things this environment has. */
  has(t: EntityType): boolean {
    if (t === 'player' || t === 'wall') return true;
    return this.snap.env === 'sokoban' ? t === 'box' || t === 'target' : t === 'hole' || t === 'goal';
  }

  positions(t: EntityType): Cell[] {
    const s = this.snap;
    switch (t) {
      case 'player':
        return [[...s.player] as Cell];
      case 'box':
        return s.env === 'sokoban' ? s.boxes.map((b) => [...b] as Cell) : [];
      case 'target':
        return s.env === 'sokoban' ? cellsOf(s.fixed, 'O') : [];
      case 'hole':
        return s.env === 'frozenlake' ? cellsOf(s.map, 'H') : [];
      case 'goal':
        return s.env === 'frozenlake' ? cellsOf(s.map, 'G') : [];
      case 'wall': {
        // walls of the room, and the ring just outside the board (FrozenLake's edges)
        const inner = s.env === 'sokoban' ? cellsOf(s.fixed, '#') : [];
        const ring: Cell[] = [];
        for (let r = -1; r <= this.rows; r++) ring.push([r, -1], [r, this.cols]);
        for (let c = 0; c < this.cols; c++) ring.push([-1, c], [this.rows, c]);
        return [...inner, ...ring];
      }
    }
  }

  isWall([r, c]: Cell): boolean {
    if (!Number.isInteger(r) || !Number.isInteger(c)) return false;
    if (r < 0 || c < 0 || r >= this.rows || c >= this.cols) return true;
    return this.snap.env === 'sokoban' && this.snap.fixed[r]![c] === '#';
  }

  isTarget([r, c]: Cell): boolean {
    return this.snap.env === 'sokoban' && this.snap.fixed[r]?.[c] === 'O';
  }

  boxesOnTarget(): number {
    return this.positions('box').filter((b) => this.isTarget(b)).length;
  }

  /** Player on a hole tile (the episode ended in the water). */
  inHole(): boolean {
    const s = this.snap;
    return s.env === 'frozenlake' && s.map[s.player[0]]![s.player[1]] === 'H';
  }

  onGoal(): boolean {
    const s = this.snap;
    return s.env === 'frozenlake' && s.map[s.player[0]]![s.player[1]] === 'G';
  }

  /** The states after each of `moves`, deterministically (no slipping); stops at the end of the episode. */
  simulate(moves: string[]): World[] {
    const s = this.snap;
    const env =
      s.env === 'sokoban'
        ? // restored below, never generated: the smallest search keeps every room size within the generation budget
          new SokobanEnv({ rows: this.rows, cols: this.cols, numBoxes: Math.max(1, Math.min(4, s.boxes.length)), maxExploredStates: 100 })
        : new FrozenLakeEnv({ size: this.rows, successRate: 1 });
    (env as { restore(x: EnvSnapshot): void }).restore({ ...s, done: false } as EnvSnapshot);
    const out: World[] = [];
    for (const m of moves) {
      if (env.done) break;
      env.step(m);
      out.push(new World(env.snapshot() as SokobanSnapshot | FrozenLakeSnapshot));
    }
    return out;
  }
}

/** "2 down and 1 left": where `to` is seen from `from`. Rows grow downwards. */
export function describeOffset(from: readonly [number, number], to: readonly [number, number], same = 'at the same place'): string {
  const dr = to[0] - from[0];
  const dc = to[1] - from[1];
  const parts: string[] = [];
  if (dr) parts.push(`${Math.abs(dr)} ${dr > 0 ? 'down' : 'up'}`);
  if (dc) parts.push(`${Math.abs(dc)} ${dc > 0 ? 'right' : 'left'}`);
  return parts.length ? parts.join(' and ') : same;
}
