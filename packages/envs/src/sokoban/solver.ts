import type { SokobanSnapshot } from '../types.js';
import { SOKOBAN_ACTIONS } from './actions.js';

const DELTAS: readonly (readonly [number, number])[] = [
  [-1, 0],
  [1, 0],
  [0, -1],
  [0, 1],
];

export interface SokobanSolveOptions {
  /** Give up after expanding this many states (returns null). */
  maxStates?: number;
}

/**
 * Optimal (fewest primitive actions) Sokoban solution by breadth-first search over
 * (player, boxes) states with push moves. Returns the action names, [] when already
 * solved, or null when unsolvable within the state budget.
 */
export function solveSokoban(s: SokobanSnapshot, opts: SokobanSolveOptions = {}): string[] | null {
  const rows = s.fixed.length;
  const cols = s.fixed[0]!.length;
  const wall = new Uint8Array(rows * cols);
  const target = new Uint8Array(rows * cols);
  s.fixed.forEach((row, r) =>
    [...row].forEach((ch, c) => {
      wall[r * cols + c] = ch === '#' ? 1 : 0;
      target[r * cols + c] = ch === 'O' ? 1 : 0;
    }),
  );
  const maxStates = opts.maxStates ?? 2_000_000;
  const start = [s.player[0] * cols + s.player[1], ...s.boxes.map(([r, c]) => r * cols + c).sort((a, b) => a - b)];
  const solved = (st: number[]) => st.slice(1).every((b) => target[b] === 1);
  if (solved(start)) return [];

  const key = (st: number[]) => st.join(',');
  const parent = new Map<string, { prev: string; action: number } | null>([[key(start), null]]);
  let frontier: number[][] = [start];
  while (frontier.length > 0) {
    const next: number[][] = [];
    for (const st of frontier) {
      const player = st[0]!;
      const boxes = st.slice(1);
      for (let a = 0; a < 4; a++) {
        const step = DELTAS[a]![0] * cols + DELTAS[a]![1];
        const dest = player + step;
        if (wall[dest]) continue;
        let nextBoxes = boxes;
        const bi = boxes.indexOf(dest);
        if (bi >= 0) {
          const beyond = dest + step;
          if (wall[beyond] || boxes.includes(beyond)) continue;
          nextBoxes = boxes.slice();
          nextBoxes[bi] = beyond;
          nextBoxes.sort((x, y) => x - y);
        }
        const ns = [dest, ...nextBoxes];
        const k = key(ns);
        if (parent.has(k)) continue;
        parent.set(k, { prev: key(st), action: a });
        if (solved(ns)) return backtrack(parent, k);
        if (parent.size >= maxStates) return null;
        next.push(ns);
      }
    }
    frontier = next;
  }
  return null;
}

function backtrack(parent: Map<string, { prev: string; action: number } | null>, k: string): string[] {
  const out: string[] = [];
  for (let link = parent.get(k); link; link = parent.get(link.prev)) out.push(SOKOBAN_ACTIONS[link.action]!);
  return out.reverse();
}
