// Written by `npm run bench:diagnostics -- --write-rule-precision`; do not edit by hand.
/** Contradictions each reading rule raised on the data below, and how many of them were right. */
export const RULE_PRECISION: Record<string, { flags: number; right: number }> = {
  relation: {
    flags: 227,
    right: 222,
  },
  coordinate: {
    flags: 150,
    right: 149,
  },
  'move-verb': {
    flags: 57,
    right: 57,
  },
  'move-list': {
    flags: 19,
    right: 17,
  },
  'box-must-go': {
    flags: 12,
    right: 11,
  },
  count: {
    flags: 11,
    right: 11,
  },
  'coordinate-before-subject': {
    flags: 7,
    right: 6,
  },
  'cell-talk': {
    flags: 6,
    right: 4,
  },
  'on-target': {
    flags: 4,
    right: 4,
  },
  'relation-before-subject': {
    flags: 4,
    right: 1,
  },
  distance: {
    flags: 2,
    right: 2,
  },
  'relation-reference-cell': {
    flags: 2,
    right: 2,
  },
  'direction-holds-thing': {
    flags: 1,
    right: 1,
  },
  'outcome-of-last-moves': {
    flags: 1,
    right: 1,
  },
  'relation-after-moves': {
    flags: 1,
    right: 1,
  },
  'safe-to-move': {
    flags: 1,
    right: 1,
  },
};
export const RULE_PRECISION_DATA = 'measured on 894 development texts';
/** The labelled sets (packages/envs/test/fixtures) the counts come from. */
export const RULE_PRECISION_SETS = [
  'reasoning-labelled',
  'reasoning-handwritten',
  'reasoning-handwritten-2',
  'reasoning-handwritten-3',
  'reasoning-dev-kinds',
  'reasoning-heldout-4',
  'reasoning-heldout-5',
  'reasoning-heldout-6',
];
