/** Sokoban's action names, in the order of generate.ts's DELTAS. */
export const SOKOBAN_ACTIONS = ['Up', 'Down', 'Left', 'Right'] as const;
