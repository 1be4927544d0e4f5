// The claim reader's state: what it carries across a think text (TextState) and what it knows
// within one sentence while the rules (rules.ts) read it token by token (SentenceState).
import type { Claim, Decision, Dir, EntityRef } from './claims.js';
import { COORD } from './lexicon.js';
import type { EnvKind } from './normalize.js';
import type { RelPhrase } from './phrases.js';

/** Why what follows is off the current board: a condition, the past, a counterfactual, a plan, a question. */
export type Scope = 'cond' | 'past' | 'counter' | 'plan' | 'question';

const OFF_BOARD: Record<Scope, string> = {
  cond: 'a condition or hypothetical',
  past: 'about the past',
  counter: 'a counterfactual',
  plan: 'a plan, not the current board',
  question: 'a question',
};

/** Across sentences: what has been read, and what later pronouns and "this" refer to. */
export class TextState {
  readonly claims: Claim[] = [];
  readonly decisions: Decision[] = [];
  /** Move lists stated as paths ("Right, Right, Down gets me to the goal"): other readings of the decision. */
  readonly paths: string[][] = [];
  /** The last non-player thing named: what "it" is. */
  lastThing: EntityRef | null = null;
  /** The moves named last (decided or not): what "this", "that" predict for. */
  lastMoves: string[] | null = null;
  /** Where the box named last is said to be: what "push it" pushes. */
  lastBoxCell: [number, number] | undefined;

  constructor(
    readonly env: EnvKind,
    /** Extra action names (the bandit's arms) that count as moves. */
    readonly actionSet: Set<string>,
    /** The coordinate base in force. */
    readonly base: 0 | 1,
  ) {}

  // NaN: an open axis ("in row 3"); Infinity: the last row/column ("the bottom left corner")
  private axis(v: string): number {
    return v === 'x' ? NaN : v === 'last' ? Infinity : v.startsWith('o') ? Number(v.slice(1)) - 1 + this.base : Number(v);
  }

  readonly cellOf = (tok: string): [number, number] | null => {
    const m = COORD.exec(tok);
    return m ? [this.axis(m[1]!), this.axis(m[2]!)] : null;
  };
}

/** Within one sentence: the rules read and change these as they go. */
export class SentenceState {
  /** The token being read; a rule that consumes tokens leaves it on the last one it used. */
  i = 0;
  subject: EntityRef | null = null;
  /** The entity before the subject: what "its" refers to. */
  previous: EntityRef | null;
  /** "the goal and I": the first of two things joined by "and". */
  conj: EntityRef | null = null;
  subjectCell: [number, number] | undefined;
  subjectAt = -1;
  /** A negation is open and applies to the next claim. */
  neg = false;
  /** "avoid the holes on the left": the holes are there; only outcomes are negated by it. */
  avoidNeg = false;
  /** A coordinate or relation said before the thing it belongs to: "at (2, 3) is the box". */
  pendingCoord: [number, number] | null = null;
  pendingRel: RelPhrase | null = null;
  /** Moves named from here are not decided ("if", "would", the past). */
  hypothetical = false;
  decisionCue = false;
  firmCue = false;
  modal = false;
  movePhraseSeen = false;
  /** "the lower …": for the next thing named. */
  which: Dir | undefined;
  /** "the cell past it, (3, 1), is empty": coordinates of a cell, not of the subject. */
  cellTalk = false;
  /** Off the current board from here on: why. */
  scope: Scope | null;
  /** The thing the current token names (set by the subject rule for the rules after it). */
  entityHere: EntityRef | null = null;
  pronounHere = false;

  constructor(
    readonly text: TextState,
    readonly toks: string[],
    readonly span: [number, number],
    question: boolean,
  ) {
    this.previous = text.lastThing;
    this.scope = question ? 'question' : null;
  }

  private unsure(c: Claim): Claim {
    if (!this.scope) return c;
    // a stated sequence of moves from the current state can be simulated, whatever the "if"
    if (this.scope === 'cond' && c.kind === 'outcome' && c.moves) return c;
    return { ...c, unsure: OFF_BOARD[this.scope] };
  }

  /** Records a claim (marked unsure when off the board) and closes the open negation. */
  emit(c: Claim, rule?: string): void {
    if (c.kind === 'position' && c.entity.type === 'box' && !c.negated && !Number.isNaN(c.cell[0]) && !Number.isNaN(c.cell[1]))
      this.text.lastBoxCell = c.cell;
    const kept = this.avoidNeg && c.kind !== 'outcome' ? { ...c, negated: false } : c;
    const claim = this.unsure(kept);
    if (rule) claim.rule = rule;
    this.text.claims.push(claim);
    this.neg = false;
    this.avoidNeg = false;
  }

  decide(moves: string[], negated: boolean): void {
    // "should I go Down?": a question decides nothing
    if (this.scope === 'question') return;
    this.text.decisions.push({ span: this.span, moves, negated, ...(this.firmCue ? { firm: true } : {}) });
    this.firmCue = false;
  }
}
