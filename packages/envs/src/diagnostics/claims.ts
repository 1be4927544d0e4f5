// The claim reader's output: what a think text says about the board, and what it decides.
import type { Convention } from './normalize.js';

export type Dir = 'up' | 'down' | 'left' | 'right';
export type EntityType = 'player' | 'box' | 'target' | 'hole' | 'goal' | 'wall';

export interface EntityRef {
  type: EntityType;
  /** "boxes", "holes": any of them. */
  plural: boolean;
  /** "box 2": 1-based, in the order the state lists them. */
  index?: number;
  /** "the lower box", "the left hole": the one farthest that way. */
  which?: Dir;
}

export interface RelationPart {
  dir: Dir;
  /** Cells along this direction; absent = somewhere that way. */
  dist?: number;
  /** "2 columns left": a difference along one axis that says nothing of the other. */
  axisOnly?: boolean;
}

export type OutcomeKind = 'blocked' | 'fall' | 'box_on_target' | 'reach_goal' | 'push_box' | 'reach_cell';

interface ClaimBase {
  /** The sentence of the think text the claim comes from. */
  span: [number, number];
  negated: boolean;
  /** Why the claim is not about the current board, or its parse is not sure: it is then never judged. */
  unsure?: string;
  /** The reading rule (rules.ts) that produced the claim: its precision is measured per rule. */
  rule?: string;
  /** The normalised tokens of the sentence the rule read, [from, to). */
  tokens?: [number, number];
}
export interface PositionClaim extends ClaimBase {
  kind: 'position';
  entity: EntityRef;
  cell: [number, number];
  /** "the third column": said as an ordinal, which some count from 0. */
  ordinal?: boolean;
}
export interface OnTargetClaim extends ClaimBase {
  kind: 'on_target';
  entity: EntityRef;
  cell?: [number, number];
}
export interface RelationClaim extends ClaimBase {
  kind: 'relation';
  subject: EntityRef;
  ref: EntityRef;
  parts: RelationPart[];
  /** "next to", "adjacent": one cell away. */
  adjacent: boolean;
  /** "directly left": on the same row/column. */
  direct: boolean;
  same?: 'row' | 'column';
  /** The subject's cells were named in the same sentence ("holes at (2, 2) and (2, 3) are to my right"). */
  located?: boolean;
  /** "moving left puts me next to a hole": the relation holds after these moves. */
  after?: string[];
}
export interface OutcomeClaim extends ClaimBase {
  kind: 'outcome';
  outcome: OutcomeKind;
  /** "pushing the box down": the player first walks behind the box (at `boxCell` when named). */
  pushesBox?: boolean;
  boxCell?: [number, number];
  /** The moves the outcome is predicted for; absent = the turn's decided moves. */
  moves?: string[];
  /** reach_cell: where the player or a box ends up ('either': a push that does not say which). */
  cell?: [number, number];
  who?: 'box' | 'player' | 'either';
}
/** "exactly one hole in column 2", "two boxes", "no holes next to me". */
export interface CountClaim extends ClaimBase {
  kind: 'count';
  entity: EntityRef;
  count: number;
  /** A row or column (the other axis NaN), next to the player, or the whole board. */
  cell?: [number, number];
  adjacent?: boolean;
}
/** "the goal is 3 steps away": Manhattan distance between two things. */
export interface DistanceClaim extends ClaimBase {
  kind: 'distance';
  subject: EntityRef;
  ref: EntityRef;
  dist: number;
}
export type Claim = PositionClaim | OnTargetClaim | RelationClaim | OutcomeClaim | CountClaim | DistanceClaim;

export interface Decision {
  span: [number, number];
  moves: string[];
  negated: boolean;
  /** "I pick", "my answer:", "final": outranks an earlier, plainer decision. */
  firm?: boolean;
}

export interface Extraction {
  claims: Claim[];
  decisions: Decision[];
  /** Move lists stated as paths: when the answer follows one, a different decision is not a clear mismatch. */
  paths: string[][];
  convention: Convention;
}
