/** FrozenLake's moves, shared by the environment and its solvers. */

/** RAGEN action ids 1..4 map to gymnasium's 0 Left, 1 Down, 2 Right, 3 Up. */
export const FROZENLAKE_ACTIONS = ['Left', 'Down', 'Right', 'Up'] as const;
export const FROZENLAKE_DELTAS: readonly (readonly [number, number])[] = [
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, 0],
];

/** Where a move from (r, c) lands, staying in place at the border. */
export function lakeMove(size: number, [r, c]: readonly [number, number], action: number): [number, number] {
  const [dr, dc] = FROZENLAKE_DELTAS[action]!;
  return [Math.min(Math.max(r + dr, 0), size - 1), Math.min(Math.max(c + dc, 0), size - 1)];
}

/** The three directions a slippery move can take, with their probabilities. */
export function slipOutcomes(action: number, successRate: number): { action: number; p: number }[] {
  if (successRate >= 1) return [{ action, p: 1 }];
  const side = (1 - successRate) / 2;
  return [
    { action: (action + 3) % 4, p: side },
    { action, p: successRate },
    { action: (action + 1) % 4, p: side },
  ];
}
