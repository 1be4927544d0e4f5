import type { FrozenLakeSnapshot } from '../types.js';
import { FROZENLAKE_ACTIONS, lakeMove, slipOutcomes } from './moves.js';

/** Shortest action sequence to the goal on deterministic ice (BFS), or null if none. */
export function solveFrozenLake(s: FrozenLakeSnapshot): string[] | null {
  const size = s.map.length;
  const id = (r: number, c: number) => r * size + c;
  const parent = new Map<number, { prev: number; action: number } | null>([[id(...s.player), null]]);
  let frontier: [number, number][] = [s.player];
  if (s.map[s.player[0]]![s.player[1]] === 'G') return [];
  while (frontier.length) {
    const next: [number, number][] = [];
    for (const pos of frontier) {
      for (let a = 0; a < 4; a++) {
        const [r, c] = lakeMove(size, pos, a);
        const k = id(r, c);
        if (parent.has(k) || s.map[r]![c] === 'H') continue;
        parent.set(k, { prev: id(...pos), action: a });
        if (s.map[r]![c] === 'G') {
          const out: string[] = [];
          for (let link = parent.get(k); link; link = parent.get(link.prev)) out.push(FROZENLAKE_ACTIONS[link.action]!);
          return out.reverse();
        }
        next.push([r, c]);
      }
    }
    frontier = next;
  }
  return null;
}

export interface LakePolicy {
  /** Success probability from each cell (row-major) under the optimal policy. */
  values: number[];
  /** Best action name per cell (row-major); '' for holes and the goal. */
  policy: string[];
}

/**
 * Value iteration on slippery ice: maximises the probability of reaching the goal.
 * With `horizon`, values are for at most that many moves (the rollout's action cap);
 * otherwise iterated to convergence.
 */
export function solveSlipperyFrozenLake(map: string[], successRate: number, horizon?: number): LakePolicy {
  const size = map.length;
  const n = size * size;
  const terminal = (i: number) => map[Math.floor(i / size)]![i % size] === 'H' || map[Math.floor(i / size)]![i % size] === 'G';
  let values = Array.from({ length: n }, (_, i): number => (map[Math.floor(i / size)]![i % size] === 'G' ? 1 : 0));
  const policy = Array.from({ length: n }, () => '');
  const maxIter = horizon ?? 10_000;
  for (let it = 0; it < maxIter; it++) {
    let delta = 0;
    const next = values.slice();
    for (let i = 0; i < n; i++) {
      if (terminal(i)) continue;
      let best = -1;
      for (let a = 0; a < 4; a++) {
        let q = 0;
        for (const o of slipOutcomes(a, successRate)) {
          const [r, c] = lakeMove(size, [Math.floor(i / size), i % size], o.action);
          q += o.p * values[r * size + c]!;
        }
        if (q > best + 1e-12) {
          best = q;
          policy[i] = FROZENLAKE_ACTIONS[a]!;
        }
      }
      delta = Math.max(delta, Math.abs(best - values[i]!));
      next[i] = best;
    }
    values = next;
    if (horizon === undefined && delta < 1e-10) break;
  }
  return { values, policy };
}

/**
 * Up to `moves` moves that maximise the chance of reaching the goal within `actionsLeft` moves on ice
 * that keeps the intended direction with probability `successRate`: each the optimal first move of the
 * finite-horizon value iteration, from where the moves before it were meant to land. On still ice
 * (successRate 1) this is the shortest path's start.
 */
export function lakePlan(s: FrozenLakeSnapshot, successRate: number, actionsLeft: number, moves: number): string[] | null {
  if (successRate >= 1) return solveFrozenLake(s)?.slice(0, moves) ?? null;
  const size = s.map.length;
  const plan: string[] = [];
  let at: [number, number] = [s.player[0], s.player[1]];
  for (let k = 0; k < moves && actionsLeft - k > 0; k++) {
    const tile = s.map[at[0]]![at[1]];
    if (tile === 'H' || tile === 'G') break;
    const { values, policy } = solveSlipperyFrozenLake(s.map, successRate, actionsLeft - k);
    const move = policy[at[0] * size + at[1]]!;
    if (!move || (k === 0 && values[at[0] * size + at[1]]! <= 0)) break;
    plan.push(move);
    at = lakeMove(size, at, FROZENLAKE_ACTIONS.indexOf(move as (typeof FROZENLAKE_ACTIONS)[number]));
  }
  return plan.length ? plan : null;
}
