// Written by `npm run bench:diagnostics -- --write-rule-precision`; do not edit by hand.
/** Contradictions each reading rule raised, per form of sentence, on the held-out data below, and how many of them were right. */
export const RULE_PRECISION: Record<string, { flags: number; right: number }> = {
  'relation@template': {
    flags: 220,
    right: 220,
  },
  'coordinate@template': {
    flags: 136,
    right: 135,
  },
  'box-must-go@template': {
    flags: 109,
    right: 109,
  },
  'relation@free': {
    flags: 60,
    right: 41,
  },
  'coordinate@free': {
    flags: 26,
    right: 16,
  },
  'move-verb@free': {
    flags: 12,
    right: 5,
  },
  'relation-reference-cell@free': {
    flags: 10,
    right: 3,
  },
  'distance@free': {
    flags: 5,
    right: 4,
  },
  'move-list@free': {
    flags: 5,
    right: 3,
  },
  'on-target@free': {
    flags: 4,
    right: 4,
  },
  'box-must-go@free': {
    flags: 3,
    right: 3,
  },
  'coordinate-before-subject@free': {
    flags: 3,
    right: 1,
  },
  'count@free': {
    flags: 3,
    right: 3,
  },
  'relation-before-subject@free': {
    flags: 3,
    right: 1,
  },
  'cell-talk@free': {
    flags: 1,
    right: 1,
  },
  'outcome-of-last-moves@free': {
    flags: 1,
    right: 1,
  },
};
export const RULE_PRECISION_DATA = 'measured on 1237 held-out texts';
/** The labelled sets (packages/envs/test/fixtures) the counts come from: rounds the rules were never tuned on. */
export const RULE_PRECISION_SETS = [
  'reasoning-heldout-7',
  'reasoning-heldout-8',
  'reasoning-real-1',
  'reasoning-heldout-9',
  'reasoning-real-2',
  'reasoning-real-3',
];
