import { conventionOf, sentences, type Convention, type EnvKind } from './normalize.js';

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

const DIRS = new Set(['up', 'down', 'left', 'right']);
const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'nothing', 'neither', 'nor', 'avoid', 'avoiding', 'avoids', 'without']);
const UNITS = /^(steps?|squares?|cells?|tiles?|spaces?|units?|rows?|columns?|cols?|moves?|places?|positions?|times|blocks?)$/;
const CONNECTORS = new Set([
  ',',
  'and',
  'then',
  'to',
  'the',
  'after',
  'that',
  'finally',
  'again',
  'more',
  'next',
  'first',
  ':',
  'one',
  'it',
  'a',
  'with',
]);
const MOVE_VERB =
  /^(move|moves|moving|moved|go|goes|going|went|continue|continuing|proceed|proceeding|step|stepping|walk|walks|walking|push|pushes|pushing|pushed|head|heads|heading|slide|sliding|travel|travelling|traveling|turn|choose|chooses|choosing|pick|picks|select|selects|take|takes|taking|try|press|use|get|gets|getting)$/;
const DECISION_WORDS = new Set(['plan', 'answer', 'action', 'actions', 'move', 'moves', 'decision', 'choice']);
const HYPOTHETICAL = new Set(['if', 'would', 'could', 'might', 'whether', 'when', 'can', 'unless']);
const MODALS = new Set(['must', 'should', 'needs', 'need', 'has', 'have', 'ought']);

/** Words after which a coordinate is where the subject is: "box at (2, 3)", "box: (2, 3)", "box, (2, 3)". */
const COORD_LINK =
  /^(at|is|are|on|in|sits|sit|lies|lie|located|stands|standing|currently|now|still|,|:|=|and|position|cell|square|coordinates|coords|both|also|be|sitting|lying|resting|rests|=>|->|-)$/;

const PUT = /^(puts?|leaves?|brings?|gets?|takes?|lands?|pushes|shoves?|moves|sends?|places?)$/;
const MOVE_TAIL = /^(up|down|left|right|times|once)$/;

const ENTITY = /^@(player|box|target|hole|goal|wall)(\+|#(\d+))?$/;
const COORD = /^<(o?\d+|x|last)_(o?\d+|x|last)>$/;

function entityOf(tok: string | undefined): EntityRef | null {
  const m = tok ? ENTITY.exec(tok) : null;
  if (!m) return null;
  return { type: m[1] as EntityType, plural: m[2] === '+', ...(m[3] ? { index: Number(m[3]) } : {}) };
}

const PLAYER: EntityRef = { type: 'player', plural: false };

interface RelPhrase {
  parts: RelationPart[];
  adjacent: boolean;
  direct: boolean;
  same?: 'row' | 'column';
  ref?: EntityRef;
  end: number;
}

/** A run of direction words with distances: "2 steps down and 1 left of the box", "directly above me", "next to". */
function readRelation(toks: string[], i: number, prev?: EntityRef): RelPhrase | null {
  const out: RelPhrase = { parts: [], adjacent: false, direct: false, end: i };
  let j = i;
  let pendingDist: number | undefined;
  let pendingAxis = false;
  let refWhich: Dir | undefined;
  for (; j < toks.length; j++) {
    const t = toks[j]!;
    if (t === '~direct') out.direct = true;
    else if (t === '~adj') out.adjacent = true;
    else if (t === '~samerow') out.same = 'row';
    else if (t === '~samecolumn' || t === '~samecol') out.same = 'column';
    else if (/^\d+$/.test(t) && (UNITS.test(toks[j + 1] ?? '') || DIRS.has(toks[j + 1] ?? ''))) {
      pendingDist = Number(t);
      pendingAxis = /^(rows?|columns?|cols?)$/.test(toks[j + 1]!);
      if (UNITS.test(toks[j + 1]!)) j++;
      // "two rows further down"
      if (/^(further|farther|more)$/.test(toks[j + 1] ?? '')) j++;
    } else if (DIRS.has(t)) {
      let dist = pendingDist;
      const axisOnly = pendingAxis;
      pendingDist = undefined;
      pendingAxis = false;
      // "up 2 steps"
      if (dist === undefined && /^\d+$/.test(toks[j + 1] ?? '') && UNITS.test(toks[j + 2] ?? '') && toks[j + 2] !== 'times') {
        dist = Number(toks[j + 1]);
        j += 2;
      }
      out.parts.push(dist === undefined ? { dir: t as Dir } : { dir: t as Dir, dist, ...(axisOnly ? { axisOnly } : {}) });
    } else if (t === 'the' && DIRS.has(toks[j + 1] ?? '') && entityOf(toks[j + 2])) {
      // "under the left box": the reference, named by where it is
      refWhich = toks[j + 1] as Dir;
      j += 2;
      break;
    } else if (
      (t === 'and' || t === ',' || t === 'to' || t === 'the' || t === 'then') &&
      (out.parts.length || out.direct || out.adjacent)
    ) {
      const next = toks[j + 1] ?? '';
      if (!(DIRS.has(next) || /^\d+$/.test(next) || next === '~direct' || next === 'to' || next === 'the' || next === 'then')) break;
    } else break;
  }
  if (!out.parts.length && !out.adjacent && !out.same) return null;
  // "straight up, two rows above me": one direction said twice
  out.parts = out.parts.filter(
    (p, k) =>
      !out.parts.some(
        (q, m) => m !== k && q.dir === p.dir && (q.dist !== undefined ? p.dist === undefined || m < k : m < k && p.dist === undefined),
      ),
  );
  // the reference: "of the box", "from me", "as the target", or the entity right after
  let k = j;
  if (['of', 'from', 'than', 'as', 'relative', 'to', 'with'].includes(toks[k] ?? '')) k++;
  if (toks[k] === 'to') k++;
  if (/^(that|this)$/.test(toks[k] ?? '') && entityOf(toks[k + 1])) k++;
  const pronounRef = toks[k] === 'its' || toks[k] === 'it';
  // "on its right" with nothing named before: no reference, no claim
  if (pronounRef && !prev) return null;
  const plain = pronounRef ? prev : entityOf(toks[k]);
  const ref = plain && refWhich && !plain.plural ? { ...plain, which: refWhich } : plain;
  if (ref) {
    out.ref = ref;
    j = k + 1;
    // "3 columns left of me and 1 row down": the phrase goes on after its reference
    if (toks[j] === 'and' && (DIRS.has(toks[j + 1] ?? '') || /^\d+$/.test(toks[j + 1] ?? ''))) {
      const more = readRelation(toks, j + 1, ref);
      if (more && (!more.ref || more.ref === ref) && more.parts.length) {
        out.parts.push(...more.parts);
        j = more.end;
      }
    }
  }
  out.end = j;
  return out;
}

interface MovePhrase {
  moves: string[];
  end: number;
  /** A box was named among the moves ("push the box at (5, 5) down"). */
  box: boolean;
  boxCell?: [number, number];
}

/** "up, up and left", "down 2 times", "left then up", "the box up". */
function readMoves(toks: string[], i: number, actionWords: Set<string>): MovePhrase {
  const moves: string[] = [];
  let j = i;
  let count = 1;
  let box = false;
  let boxCell: [number, number] | undefined;
  for (; j < toks.length; j++) {
    const t = toks[j]!;
    if (t.startsWith('@box')) {
      box = true;
      const at = toks[j + 1] === 'at' ? COORD.exec(toks[j + 2] ?? '') : null;
      if (at && at[1] !== 'x' && at[2] !== 'x') {
        boxCell = [Number(at[1]), Number(at[2])];
        j += 2;
      }
      continue;
    }
    // "get below it", "go left of the box": a place, not a move
    if (DIRS.has(t) && (/^(it|of|that|this)$/.test(toks[j + 1] ?? '') || (ENTITY.test(toks[j + 1] ?? '') && toks[j + 1] !== '@player')))
      break;
    if (DIRS.has(t) || actionWords.has(t)) {
      for (let n = 0; n < count; n++) moves.push(t);
      count = 1;
      if (/^\d+$/.test(toks[j + 1] ?? '') && UNITS.test(toks[j + 2] ?? '')) {
        const times = Math.min(10, Number(toks[j + 1]));
        for (let n = 1; n < times; n++) moves.push(t);
        j += 2;
      }
    } else if (/^\d+$/.test(t) && (UNITS.test(toks[j + 1] ?? '') || DIRS.has(toks[j + 1] ?? ''))) {
      count = Math.min(10, Number(t));
      if (UNITS.test(toks[j + 1]!)) j++;
    } else if (MOVE_VERB.test(t) && moves.length && !['then', 'and', ',', 'to'].includes(toks[j - 1] ?? ''))
      break; // "pushing up moves the box": a new clause
    else if (CONNECTORS.has(t) || MOVE_VERB.test(t) || t === '@box' || t === '@player' || t === "'ll" || t === 'will') continue;
    else break;
  }
  return { moves, end: j, box, ...(boxCell ? { boxCell } : {}) };
}

const OUTCOME_WORDS: [RegExp, OutcomeKind][] = [
  [/^(hit|hits|hitting|bump|bumps|bumping|blocked|block|blocks|stuck|crash|crashes|crashing)$/, 'blocked'],
  [/^(fall|falls|falling|fell|drop|drops|dropping|sink|sinks|sinking|drown|drowns|plunge|plunges)$/, 'fall'],
  [/^(solve|solves|solving|solved|complete|completes|completing|finish|finishes|win|wins)$/, 'box_on_target'],
  [/^(reach|reaches|reaching|arrive|arrives|arriving)$/, 'reach_goal'],
];
/** "is open", "is free": the move is not blocked. */
const OPEN = /^(open|free|clear|possible|available|allowed|unblocked|legal|valid)$/;
const AVOID = /^(avoid|avoids|avoiding|dodge|dodges|dodging|skip|skips|skipping|miss|misses|missing|bypass|bypasses|bypassing)$/;
const TOUCH =
  /^(touch|touches|touching|enter|enters|entering|cross|crosses|crossing|land|lands|landing|step|steps|stepping|hit|hits|hitting|visit|visits|visiting|end|ends|ending|pass|passes|passing)$/;
const OUTCOME_STOP = new Set([',', 'so', 'therefore', 'thus', 'because', 'since', 'which', 'then', 'hence', 'if', 'but']);
const PLACE_VERB =
  /^(leaves?|shoves?|gets?|getting|takes?|taking|puts?|putting|brings?|bringing|leads?|leading|lands?|landing|ends?|ending|moves?|moving|places?|placing|sends?|sending|goes|go|going|puts|be|lands|arrive|arrives|slides?|pushes|push|pushing|shifts?)$/;

interface ReadOutcome {
  outcome: OutcomeKind;
  negated: boolean;
  end: number;
  cell?: [number, number];
  /** reach_cell: the box ends there ('box'), the player, or either when the text does not say (a push). */
  who?: 'box' | 'player' | 'either';
  /** The polarity was read from the outcome's own words ("is open"), not from a negation before the moves. */
  own?: boolean;
}

/** Outcomes predicted in tokens [from, to): "gets me to the goal and never lands on a hole", "puts the box at (3, 2)". */
function readOutcomes(
  toks: string[],
  from: number,
  to: number,
  negatedBefore: boolean,
  cellOf: (tok: string) => [number, number] | null,
): ReadOutcome[] {
  const out: ReadOutcome[] = [];
  let neg = negatedBefore;
  let placeVerb = false;
  let boxNamed = false;
  let playerNamed = false;
  for (let j = from; j < to; j++) {
    const t = toks[j]!;
    if (t === 'safe' || t === 'safely') {
      out.push({ outcome: 'fall', negated: !neg, end: j + 1 });
      neg = false;
      continue;
    }
    if (t === 'freely' || t === 'easily' || (OPEN.test(t) && !out.length)) {
      out.push({ outcome: 'blocked', negated: !neg, end: j + 1, own: true });
      neg = false;
      continue;
    }
    // "reaches (2, 1), which is safe": the end cell is safe
    if (t === ',' && toks[j + 1] === 'which' && out.at(-1)?.outcome === 'reach_cell') continue;
    if (t === 'which' && toks[j + 1] === 'is' && /^(safe|frozen|solid)$/.test(toks[j + 2] ?? '') && out.at(-1)?.outcome === 'reach_cell') {
      out.push({ outcome: 'fall', negated: true, end: j + 3 });
      j += 2;
      continue;
    }
    if (
      OUTCOME_STOP.has(t) ||
      (t === 'and' && ENTITY.test(toks[j + 1] ?? '') && toks[j + 2] !== undefined && /^(is|are)$/.test(toks[j + 2]!))
    )
      break;
    // "pushing right does nothing": the move is blocked
    if (t === 'nothing' && j === from + 1 && /^(does|do)$/.test(toks[from] ?? '')) {
      out.push({ outcome: 'blocked', negated: false, end: j + 1, own: true });
      continue;
    }
    if (NEGATIONS.has(t) && !(AVOID.test(t) && !OUTCOME_WORDS.some(([re]) => re.test(toks[j + 1] ?? '')))) neg = true;
    if (PLACE_VERB.test(t)) placeVerb = true;
    if ((t.startsWith('@box') || t === 'it') && !playerNamed) boxNamed = true;
    if (t === '@player' && !boxNamed) playerNamed = true;
    const next = toks[j + 1] ?? '';
    let kind = OUTCOME_WORDS.find(([re]) => re.test(t))?.[1];
    let k = j + 1;
    while (/^(a|an|the|any|every|all|single|one)$/.test(toks[k] ?? '')) k++;
    const obj = toks[k] ?? '';
    if (kind === 'blocked' && obj.startsWith('@hole')) kind = 'fall';
    if (kind === 'reach_goal' && cellOf(next)) {
      out.push({ outcome: 'reach_cell', negated: neg, end: j + 2, cell: cellOf(next)!, who: 'player' });
      neg = false;
      j++;
      continue;
    }
    if (!kind && AVOID.test(t) && obj.startsWith('@hole')) {
      out.push({ outcome: 'fall', negated: true, end: k + 1 });
      neg = false;
      j = k;
      continue;
    }
    if (
      !kind &&
      TOUCH.test(t) &&
      ['on', 'onto', 'in', 'into', 'over', 'through', ''].includes(toks[j + 1] === obj ? '' : toks[j + 1]!) &&
      obj.startsWith('@hole')
    )
      kind = 'fall';
    // "pushes the box against the wall" is where the box goes, not the player being blocked
    if (!kind && (t === 'into' || t === 'in' || t === 'against') && next === '@wall' && !boxNamed) kind = 'blocked';
    if (!kind && (t === 'into' || t === 'in' || t === 'on' || t === 'onto') && next.startsWith('@hole')) kind = 'fall';
    if (!kind && (t === 'onto' || t === 'on' || t === 'into' || t === 'to') && next.startsWith('@target') && !playerNamed)
      kind = 'box_on_target';
    if (!kind && (t === 'onto' || t === 'on' || t === 'to' || t === 'at') && next === '@goal') kind = 'reach_goal';
    if (!kind && /^(moves|pushes|shifts|slides|move|push|shift|moving|pushing)$/.test(t) && next.startsWith('@box')) kind = 'push_box';
    if (!kind && placeVerb && /^(to|at|on|onto|in|into)$/.test(t)) {
      const cell = cellOf(next);
      if (cell) {
        out.push({ outcome: 'reach_cell', negated: neg, end: j + 2, cell, who: playerNamed ? 'player' : boxNamed ? 'box' : 'either' });
        neg = false;
        j++;
        continue;
      }
    }
    if (kind) {
      // "hits a wall", "falls into the hole", "reaches the goal": the object belongs to the outcome
      let end = j + 1;
      while (end < to && /^(a|the|any|into|in|onto|on|to|against|@wall\+?|@hole\+?|@target\+?|@goal)$/.test(toks[end]!)) end++;
      out.push({ outcome: kind, negated: neg, end });
      neg = false;
      j = end - 1;
    }
  }
  return out;
}

/** Words that put what follows off the current board: conditions, the past, plans. */
const COND =
  /^(if|unless|whether|suppose|supposing|assuming|imagine|once|after|until|would|could|might|'d|when|whenever|hopefully|ideally|eventually|later)$/;
const PAST = /^(was|were|had|previous|previously|earlier|ago|initially|originally|used|before|last)$/;
const PLAN = /^(want|wants|plan|plans|planning|hope|aim|aims|goal|intend|intends|try|trying|eventually)$/;
const SCOPE_END = /^(so|therefore|thus|hence|now|currently|instead|presently|actually)$/;

/**
 * Claims about the state, predicted outcomes and decided moves in a think text. `actionWords`
 * are extra action names (the bandit's arms) that count as moves. `base` is the coordinate base
 * unless the text declares its own.
 */
export function extractClaims(think: string, env: EnvKind, actionWords: readonly string[] = [], base: 0 | 1 = 0): Extraction {
  const claims: Claim[] = [];
  const decisions: Decision[] = [];
  const actionSet = new Set(actionWords.map((a) => a.toLowerCase()));
  const convention = conventionOf(think);
  const b = convention.base ?? base;
  // NaN: an open axis ("in row 3"); Infinity: the last row/column ("the bottom left corner")
  const axis = (v: string) => (v === 'x' ? NaN : v === 'last' ? Infinity : v.startsWith('o') ? Number(v.slice(1)) - 1 + b : Number(v));
  const cellOf = (tok: string): [number, number] | null => {
    const m = COORD.exec(tok);
    return m ? [axis(m[1]!), axis(m[2]!)] : null;
  };
  /** The last non-player thing named: what "it" is. */
  let lastThing: EntityRef | null = null;
  /** The moves named last (decided or not): what "this", "that" predict for. */
  let lastMoves: string[] | null = null;
  /** Move lists stated as paths ("Right, Right, Down gets me to the goal"): other readings of the decision. */
  const paths: string[][] = [];
  /** Where the box named last is said to be: what "push it" pushes. */
  let lastBoxCell: [number, number] | undefined;
  for (const sentence of sentences(think, env, convention)) {
    const toks = sentence.tokens;
    const span = sentence.span;
    let subject: EntityRef | null = null;
    /** The entity before the subject: what "its" refers to. */
    let previous: EntityRef | null = lastThing;
    /** "the goal and I": the first of two things joined by "and". */
    let conj: EntityRef | null = null;
    let subjectCell: [number, number] | undefined;
    let neg = false;
    let pendingCoord: [number, number] | null = null;
    let pendingRel: RelPhrase | null = null;
    let hypothetical = false;
    let decisionCue = false;
    let firmCue = false;
    let modal = false;
    let movePhraseSeen = false;
    let subjectAt = -1;
    /** "the lower …": for the next thing named. */
    let which: Dir | undefined;
    /** "the cell past it, (3, 1), is empty": coordinates of a cell, not of the subject. */
    let cellTalk = false;
    /** Off the current board from here on: why. A question claims nothing. */
    const question = /^\s*\?/.test(think.slice(span[1], span[1] + 3));
    let scope: 'cond' | 'past' | 'counter' | 'plan' | 'question' | null = question ? 'question' : null;
    const unsure = (c: Claim): Claim => {
      if (!scope) return c;
      // a stated sequence of moves from the current state can be simulated, whatever the "if"
      if (scope === 'cond' && c.kind === 'outcome' && c.moves) return c;
      const why = {
        cond: 'a condition or hypothetical',
        past: 'about the past',
        counter: 'a counterfactual',
        plan: 'a plan, not the current board',
        question: 'a question',
      }[scope];
      return { ...c, unsure: why };
    };
    /** "avoid the holes on the left": the holes are there; only outcomes are negated by it. */
    let avoidNeg = false;
    const emit = (c: Claim) => {
      if (c.kind === 'position' && c.entity.type === 'box' && !c.negated && !Number.isNaN(c.cell[0]) && !Number.isNaN(c.cell[1]))
        lastBoxCell = c.cell;
      const kept = avoidNeg && c.kind !== 'outcome' ? { ...c, negated: false } : c;
      claims.push(unsure(kept));
      neg = false;
      avoidNeg = false;
    };
    const decide = (moves: string[], negated: boolean) => {
      // "should I go Down?": a question decides nothing
      if (scope === 'question') return;
      decisions.push({ span, moves, negated, ...(firmCue ? { firm: true } : {}) });
      firmCue = false;
    };
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i]!;
      const sticky = scope === 'cond' || scope === 'counter' || scope === 'question';
      if (SCOPE_END.test(t) && scope !== 'question' && scope !== 'counter') scope = null;
      else if (scope && !sticky && (t === ',' || t === 'and') && !ENTITY.test(toks[i - 1] ?? '')) scope = null;
      if (scope === 'question') {
        // a question claims nothing
      } else if (
        (t === 'which' && (cellOf(toks[i - 2] ?? '') || cellOf(toks[i - 1] ?? ''))) ||
        (t === 'then' && (entityOf(toks[i + 1]) || toks[i + 1] === 'it') && /^(is|are|will|sits|'s)$/.test(toks[i + 2] ?? '')) ||
        (t === 'then' && toks[i + 1] === '@player')
      ) {
        // "moves the box to (3, 3), which is next to the target", "then the box is at (4, 4)": the state after the move
        scope = 'plan';
      } else if (t === 'were' && toks[i + 1] === 'to') scope = 'cond';
      else if ((t === 'were' || t === 'had') && (scope === 'cond' || i === 0)) scope = 'counter';
      else if (PAST.test(t) && (t !== 'last' || /^(move|moves|turn|step|time|action|round)$/.test(toks[i + 1] ?? ''))) {
        if (t !== 'before' || !/^(moving|pushing|going|stepping|@)/.test(toks[i + 1] ?? '')) scope = scope === 'counter' ? scope : 'past';
      } else if (COND.test(t) && !(t === 'after' && /^(that|this|which)$/.test(toks[i + 1] ?? ''))) scope = scope ?? 'cond';
      else if (
        PLAN.test(t) ||
        (/^(need|needs)$/.test(t) && toks[i + 1] === 'to') ||
        (t === 'from' && /^(there|that)$/.test(toks[i + 1] ?? '')) ||
        ((t === 'will' || t === "'ll") && /^(be|end|have|then)$/.test(toks[i + 1] ?? '')) ||
        (t === 'so' && toks[i + 1] === 'that')
      )
        scope = 'plan';
      if (/^(choose|chooses|chose|pick|picks|select|selects|decide|decided|decision|final|settle|opt|instead|actually|answer)$/.test(t))
        firmCue = true;
      // "so push up": a new clause, whoever was spoken of before
      if (/^(so|therefore|thus|hence)$/.test(t)) subject = null;
      // "between me and it: (4, 3)": the coordinates after a colon are not the last word's
      if (t === ':' && !entityOf(toks[i - 1])) subject = null;
      // "plan: Left, Up": a label, not a plan about the future
      if (t === 'plan' && toks[i + 1] === ':' && scope === 'plan') scope = null;
      if (NEGATIONS.has(t)) {
        neg = true;
        avoidNeg = AVOID.test(t);
        continue;
      }
      if (t === ',' || t === 'and' || t === 'so') {
        pendingCoord = null;
        pendingRel = null;
      }
      // "that isn't the target, since the target is at (2, 4)": a negation ends with its clause
      if (/^(,|since|because|though|which|:|as)$/.test(t) || (t === 'and' && ENTITY.test(toks[i + 1] ?? ''))) neg = false;
      // "I'd rather go right", "I would prefer left": a choice, not a hypothetical
      const preference = /^(would|'d)$/.test(t) && /^(rather|prefer|choose|pick|go)$/.test(toks[i + 1] ?? '');
      if (preference) {
        firmCue = true;
        decisionCue = true;
      } else if (HYPOTHETICAL.has(t) || t === 'once' || t === "'d" || (t === 'after' && !/^(that|this)$/.test(toks[i + 1] ?? '')))
        hypothetical = true;
      if (t === 'now' && i > 0) {
        // "so I go up now": the move of this turn
        const last = decisions.at(-1);
        if (last && last.span === span && MOVE_TAIL.test(toks[i - 1] ?? '')) last.firm = true;
        else firmCue = true;
      }
      if (PAST.test(t) && t !== 'before') hypothetical = true;
      if (SCOPE_END.test(t)) hypothetical = false;
      if (MODALS.has(t) || t === 'will' || t === "'ll" || t === 'let' || t === "let's" || t === 'so' || t === 'therefore' || t === 'thus')
        decisionCue = true;
      if (MODALS.has(t)) modal = true;
      const bareAnswer = /^(answer|final)$/.test(t) && DIRS.has(toks[i + 1] ?? '');
      if ((DECISION_WORDS.has(t) && (toks[i + 1] === ':' || toks[i + 1] === 'is' || toks[i + 1] === 'are')) || bareAnswer) {
        if (bareAnswer) firmCue = true;
        const m = readMoves(toks, bareAnswer ? i + 1 : i + 2, actionSet);
        if (m.moves.length) {
          if (!hypothetical || toks[i + 1] === ':') {
            if (/^(answer|decision|choice)$/.test(t)) firmCue = true;
            decide(m.moves, neg);
          }
          lastMoves = m.moves;
          neg = false;
          i = m.end - 1;
          movePhraseSeen = true;
          continue;
        }
      }
      // "the cell to my right, (0, 1), is a hole", "the square above me is free"
      if (t === '~cell') {
        cellTalk = true;
        const said = readCell(toks, i + 1, env, (subject && subject.type !== 'player' ? subject : previous) ?? undefined);
        if (said) {
          for (const c of said.claims) emit({ ...c, negated: c.negated !== neg, span });
          i = said.end - 1;
          continue;
        }
      }
      // "Right is my move", "left is the best choice"
      if (DIRS.has(t) && toks[i + 1] === 'is' && /^(my|the|our)$/.test(toks[i + 2] ?? '')) {
        const k = /^(best|final|only|right|safest|correct)$/.test(toks[i + 3] ?? '') ? i + 4 : i + 3;
        if (/^(move|choice|answer|pick|decision|action|option|call)$/.test(toks[k] ?? '')) {
          firmCue = true;
          decide([t], neg);
          lastMoves = [t];
          neg = false;
          i = k;
          continue;
        }
      }
      // "it is at (2, 3)": the last thing named
      const pronoun: boolean =
        (t === 'it' || t === "it's") && !!lastThing && (t === "it's" || /^(is|sits|lies|rests|stands|remains|'s)$/.test(toks[i + 1] ?? ''));
      const named: EntityRef | null = pronoun ? lastThing : entityOf(t);
      const entity: EntityRef | null = named && which && !named.plural ? { ...named, which } : named;
      which = undefined;
      if (entity) {
        cellTalk = false;
        if (toks[i - 1] === 'and' && entityOf(toks[i - 2])) conj = entityOf(toks[i - 2]);
        if (subject && subject.type !== entity.type) previous = subject;
        subject = entity;
        subjectAt = i;
        if (entity.type !== 'player') lastThing = entity;
        subjectCell = undefined;
        // "exactly 2 holes in row 1", "3 holes", "1 hole next to me"
        const n = /^\d+$/.test(toks[i - 1] ?? '') ? Number(toks[i - 1]) : null;
        // "the two boxes", "both holes": which ones, not how many
        const definite = /^(the|both|these|those|my|its)$/.test(toks[i - 2] ?? '');
        if (n !== null && !pronoun && !definite && entity.type !== 'wall' && entity.type !== 'player') {
          // "row 2 has two holes": the row named just before
          const has = /^(has|have|holds|contains|contain)$/.test(toks[i - 2] ?? '') ? cellOf(toks[i - 3] ?? '') : null;
          const before = has && (Number.isNaN(has[0]) || Number.isNaN(has[1])) ? has : null;
          const count = before ? { where: { cell: before }, end: i + 1 } : readCount(toks, i + 1, cellOf);
          if (count) {
            if (before) pendingCoord = null;
            const negatedCount = neg && (NEGATIONS.has(toks[i - 2] ?? '') || NEGATIONS.has(toks[i - 3] ?? ''));
            emit({ kind: 'count', entity, count: n, ...count.where, negated: negatedCount, span });
            i = count.end - 1;
            continue;
          }
        }
        if (pendingCoord) {
          emit({ kind: 'position', entity, cell: pendingCoord, negated: neg, span });
          subjectCell = pendingCoord;
          pendingCoord = null;
        }
        if (pendingRel) {
          emit({ kind: 'relation', subject: entity, ref: pendingRel.ref ?? PLAYER, ...relFields(pendingRel), negated: neg, span });
          pendingRel = null;
        }
        continue;
      }
      const cell = cellOf(t);
      if (cell) {
        // "move left to (2, 2)", "get below it, at (4, 3)": where the player is going, not where it is
        if (['to', 'from', 'toward', 'towards', 'into', 'reach', 'reaches', 'onto'].includes(toks[i - 1] ?? '')) continue;
        if (movePhraseSeen && (!subject || subject.type === 'player')) continue;
        // "B1: r2c4": a key this reader does not know; the coordinate is not the last subject's
        if ((toks[i - 1] === ':' || toks[i - 1] === '=') && !entityOf(toks[i - 2])) continue;
        // "below the top row", "left of (2, 2)": a place things are related to
        if (DIRS.has(toks[i - 1] ?? '') || (toks[i - 1] === 'of' && DIRS.has(toks[i - 2] ?? ''))) continue;
        // "the (3, 4) target": the next thing's
        if (entityOf(toks[i + 1]) && /^(the|a|an)$/.test(toks[i - 1] ?? '')) {
          pendingCoord = cell;
          continue;
        }
        // "the cell past it, (3, 1)", "then empty (4, 3)": a cell that is not the subject's
        if (cellTalk || !(COORD_LINK.test(toks[i - 1] ?? '') || entityOf(toks[i - 1]) || i === 0)) continue;
        // "(3, 2) is plain floor", "(1, 2) free": what a cell holds, not where the subject is
        const said = toks[i + 1] === 'is' ? toks[i + 2] : toks[i + 1];
        if (said && /^(plain|floor|free|empty|open|clear|ice|frozen|safe|blank|walkable)$/.test(said)) continue;
        if (subject) {
          emit({ kind: 'position', entity: subject, cell, negated: neg, span, ...(/<o|_o/.test(t) ? { ordinal: true } : {}) });
          subjectCell = cell;
        } else pendingCoord = cell;
        continue;
      }
      const linked = /^(is|are|sits|sit|stands|standing|lies|rests|already|now|,|currently)$/.test(toks[i - 1] ?? '');
      const onTargetSubject = subject?.type === 'box' || subject?.type === 'player';
      if ((t === 'on' || t === 'onto') && toks[i + 1]?.startsWith('@target') && onTargetSubject && linked && !movePhraseSeen) {
        emit({ kind: 'on_target', entity: subject!, ...(subjectCell ? { cell: subjectCell } : {}), negated: neg, span });
        i++;
        continue;
      }
      // "Right, Right, Down gets me to the goal": a stated sequence and what it does
      const listStart =
        DIRS.has(t) &&
        !entityOf(toks[i + 1]) &&
        (i === 0 || /^(,|:|sequence|path|route|moves|going|then|plan|so|therefore|thus|hence|instead|ok|okay|go)$/.test(toks[i - 1]!));
      if (listStart) {
        const m = readMoves(toks, i, actionSet);
        const after = m.end;
        // "Down takes me to (3, 1), then Right twice reaches the goal": from where the last moves ended
        if (/^(then|there)$/.test(toks[i - 1] ?? '') && lastMoves) m.moves = [...lastMoves, ...m.moves];
        const verb =
          /^(gets?|takes?|leads?|puts?|brings?|lands?|leaves?|reaches|reach|will|would|should|ends?|moves?|pushes|shoves?|keeps?|is|are|sends?|drops?|walks?|hits?|never|avoids?|stays?|goes|can|hugs?|follows?|finishes|solves)$/;
        if (m.moves.length && (verb.test(toks[after] ?? '') || (m.moves.length > 1 && toks[after] && !OUTCOME_STOP.has(toks[after]!)))) {
          // a stated path: what it does is checked, and it is one reading of the turn's decision
          if (m.moves.length > 1) paths.push(m.moves);
          const outs = readOutcomes(toks, after, toks.length, neg, cellOf);
          for (const o of outs) emit(outcomeClaim(o, m.moves, { pushes: m.box }, span));
          lastMoves = m.moves;
          if (outs.length || /^(puts?|takes?|brings?|leaves?|gets?|lands?)$/.test(toks[after] ?? '')) {
            movePhraseSeen = true;
            i = outs.length ? outs[outs.length - 1]!.end - 1 : after;
            continue;
          }
        }
        // "so Left." / ": Left" / "Right.": a bare decision closing a clause or making a sentence
        // "So Left, not Down": the rejected move after it changes nothing
        const rest = toks.slice(m.end).filter((x) => x !== ',');
        while (rest[0] === 'now' || rest[0] === 'instead') rest.shift();
        const closes = !rest.length || (NEGATIONS.has(rest[0]!) && rest.slice(1).every((x) => DIRS.has(x) || x === 'or' || x === 'and'));
        if (
          m.moves.length &&
          closes &&
          (i === 0 || /^(so|therefore|thus|hence|:|instead|ok|okay|go)$/.test(toks[i - 1]!)) &&
          !hypothetical
        ) {
          firmCue = true;
          decide(m.moves, neg);
          lastMoves = m.moves;
          neg = false;
          i = m.end - 1;
          continue;
        }
      }
      if (MOVE_VERB.test(t) || actionSet.has(t)) {
        const start = actionSet.has(t) ? i : i + 1;
        const m = readMoves(toks, start, actionSet);
        // "get below it, at (4, 3)": a destination follows
        if (!m.moves.length && (DIRS.has(toks[start] ?? '') || toks[start] === 'to')) movePhraseSeen = true;
        if (!m.moves.length) continue;
        const movesBefore: string[] | null = lastMoves;
        lastMoves = m.moves;
        // "it is safe to go down"
        const safeBefore = toks.slice(Math.max(0, i - 3), i).includes('safe');
        if (safeBefore) emit({ kind: 'outcome', outcome: 'fall', moves: m.moves, negated: !neg, span });
        movePhraseSeen = true;
        const boxMustGo = subject?.type === 'box' && modal && /^(go|goes|move|moves|get|gets)$/.test(t);
        if (boxMustGo) {
          const rel = readRelation(toks, start);
          if (rel) {
            // "the box needs to go 2 up": where the target is, said as a plan
            const c: Claim = {
              kind: 'relation',
              subject: { type: 'target', plural: false },
              ref: subject!,
              ...relFields(rel),
              negated: neg,
              span,
            };
            if (scope === 'plan') claims.push(c);
            else emit(c);
            neg = false;
            i = rel.end - 1;
          }
          // what follows ("and then right two") is the rest of the plan
          while (i + 1 < toks.length && !/^(,|so|therefore|thus)$/.test(toks[i + 1]!)) i++;
          continue;
        }
        const gerund = /ing$/.test(t) && !['is', 'am', 'are', 'be', 'to'].includes(toks[i - 1] ?? '');
        const hypo = hypothetical || gerund;
        const outs = readOutcomes(toks, m.end, toks.length, false, cellOf);
        // "pushing it down": the box named last, where it was said to be
        const it = toks.slice(start, m.end).includes('it') && lastThing?.type === 'box';
        const pushes = (m.box || it) && /^push/.test(t);
        const boxCell = m.boxCell ?? (it ? lastBoxCell : undefined);
        const seq: string[] = /^(then|there)$/.test(toks[i - 1] ?? '') && movesBefore ? [...movesBefore, ...m.moves] : m.moves;
        lastMoves = seq;
        // "nothing blocks me going up: (2, 4) is open": an adjective like "open" carries its own polarity
        for (const o of outs)
          emit(outcomeClaim({ ...o, negated: o.own ? o.negated : o.negated !== neg }, pushes ? m.moves : seq, { pushes, boxCell }, span));
        const bare = start === i; // an arm name without a verb before it
        // "a move down", "the push left": a move named, not made
        const noun = /^(a|an|the|this|that|any|each|every|no)$/.test(toks[i - 1] ?? '');
        // "the box has to travel down": the box's way, not the player's move; "to push it left, …": a purpose
        const othersMove = !!subject && subject.type !== 'player' && !/^(choose|pick|select|push)/.test(t);
        const purpose = toks[i - 1] === 'to' && (i === 1 || toks[i - 2] === 'order');
        const decided =
          noun || othersMove || purpose
            ? false
            : bare
              ? decisionCue
              : decisionCue || i === 0 || subject?.type === 'player' || !subject || /^(choose|pick|select)/.test(t);
        // "Moving right." / "Pushing Right now." / "Going Up to reach the other box.": the model's way of saying what it does
        const tail = toks.slice(m.end);
        const statedAlone =
          gerund &&
          i === 0 &&
          !hypothetical &&
          (!tail.length ||
            ((tail[0] === 'now' || tail[0] === 'instead') && !outs.length) ||
            (tail[0] === 'to' && !outs.some((o) => o.outcome !== 'reach_goal')));
        if (tail[0] === 'now' || tail[0] === 'instead') firmCue = true;
        if ((!hypo && decided) || statedAlone) decide(m.moves, neg);
        neg = false;
        i = (outs.length ? outs[outs.length - 1]!.end : m.end) - 1;
        continue;
      }
      // "the goal is 3 steps away", "I am 2 moves from the goal"
      if (/^\d+$/.test(t) && UNITS.test(toks[i + 1] ?? '') && subject) {
        const k = i + 2;
        const ref =
          toks[k] === 'away'
            ? toks[k + 1] === 'from'
              ? entityOf(toks[k + 2])
              : PLAYER
            : /^(from|of)$/.test(toks[k] ?? '')
              ? entityOf(toks[k + 1])
              : null;
        if (ref && !DIRS.has(toks[k - 1] ?? '')) {
          emit({ kind: 'distance', subject, ref, dist: Number(t), negated: neg, span });
          i = k;
          continue;
        }
      }
      // "so not Right", "Not Right -- that's the hole": a move turned down, not a place
      if (
        DIRS.has(t) &&
        NEGATIONS.has(toks[i - 1] ?? '') &&
        !/^(of|from|than|~direct)$/.test(toks[i + 1] ?? '') &&
        !entityOf(toks[i + 1])
      ) {
        const m = readMoves(toks, i, actionSet);
        decide(m.moves, true);
        neg = false;
        i = m.end - 1;
        continue;
      }
      // "Down is a hole": the cell that move reaches
      if (DIRS.has(t) && toks[i + 1] === 'is' && (i === 0 || /^(,|and|so|but|:)$/.test(toks[i - 1]!))) {
        let k = i + 2;
        const notSaid = NEGATIONS.has(toks[k] ?? '');
        if (notSaid) k++;
        while (/^(a|an|the)$/.test(toks[k] ?? '')) k++;
        const what = entityOf(toks[k]);
        if (what && (what.type === 'hole' || what.type === 'wall' || what.type === 'box')) {
          emit({
            kind: 'relation',
            subject: { type: what.type, plural: false },
            ref: PLAYER,
            parts: [{ dir: t as Dir, dist: 1 }],
            adjacent: false,
            direct: true,
            negated: notSaid,
            span,
          });
          i = k;
          continue;
        }
      }
      // "pushing Left is right", "going down is the best move": a decision
      if (
        DIRS.has(t) &&
        /ing$/.test(toks[i - 1] ?? '') &&
        MOVE_VERB.test(toks[i - 1]!) &&
        toks[i + 1] === 'is' &&
        /^(right|correct|best|the|my|good|fine|safest|wise)$/.test(toks[i + 2] ?? '')
      ) {
        firmCue = true;
        decide([t], neg);
        i += 2;
        continue;
      }
      // "right is fine", "Down is safe": what the move does, said of the move
      if (DIRS.has(t) && /^(is|looks|seems)$/.test(toks[i + 1] ?? '') && (i === 0 || /^(,|and|so|but|:)$/.test(toks[i - 1]!))) {
        const adj = toks[i + 2] === 'not' ? toks[i + 3] : toks[i + 2];
        const notSaid = toks[i + 2] === 'not';
        if (/^(fine|safe|ok|okay|open|free|clear|possible|available)$/.test(adj ?? '')) {
          const outcome = env === 'frozenlake' && /^(fine|safe|ok|okay)$/.test(adj!) ? 'fall' : 'blocked';
          emit({ kind: 'outcome', outcome, moves: [t], negated: !notSaid, span });
          i += notSaid ? 3 : 2;
          continue;
        }
      }
      const rel = readRelation(toks, i, previous ?? undefined);
      // "the left box", "the upper hole": which one, not where it is from me
      if (
        rel &&
        rel.parts.length <= 2 &&
        entityOf(toks[i + rel.parts.length]) &&
        toks[i + rel.parts.length] !== '@player' &&
        rel.end === i + rel.parts.length + 1 &&
        (i === 0 || /^(the|a|an|that|this|which|,|:)$/.test(toks[i - 1] ?? ''))
      ) {
        if (toks[i - 1] === 'the' && rel.parts.length === 1) which = rel.parts[0]!.dir;
        i += rel.parts.length - 1;
        continue;
      }
      // "below (2, 2)": relative to a place, not to me
      if (rel && !rel.ref && cellOf(toks[rel.end] ?? '')) {
        i = rel.end;
        continue;
      }
      if (rel) {
        // "the goal and I are in the same row", "the box and the target are next to each other"
        if (!rel.ref && conj && subject && (rel.same || toks[rel.end] === 'each' || toks[rel.end] === 'one') && !rel.parts.length)
          rel.ref = conj;
        // "the two boxes do not share a row": between the things named
        if (!rel.ref && subject?.plural && rel.same && !rel.parts.length) rel.ref = subject;
        if (subject?.type === 'player' && !rel.ref) {
          // "I am on the left": no reference to check against
        } else if (subject?.type === 'player' && movePhraseSeen) {
          // "moving left puts me next to a hole": checked after the moves; "come around on top of it": a plan
          const put =
            toks[i - 1] === '@player' &&
            /^(puts|put|takes|take|brings|bring|leaves|leave|lands|land|gets|get|places)$/.test(toks[i - 2] ?? '');
          if (put && lastMoves && rel.ref)
            emit({ kind: 'relation', subject, ref: rel.ref, ...relFields(rel), after: lastMoves, negated: neg, span });
          else if (put && lastMoves && !rel.ref)
            emit({
              kind: 'relation',
              subject: { type: 'hole', plural: true },
              ref: subject,
              ...relFields(rel),
              after: lastMoves,
              negated: neg,
              span,
            });
        } else if (subject) {
          const last = claims.at(-1);
          const elaborates =
            !rel.ref &&
            last?.kind === 'relation' &&
            last.span === span &&
            last.subject === subject &&
            !last.after &&
            /^(,|:|-|--)$/.test(toks[i - 1] ?? '') &&
            rel.parts.length > 0 &&
            rel.parts.every((q) => last.parts.some((p) => p.dir === q.dir));
          if (elaborates) {
            // "below and to the right of the box - one row down, one column right": the same relation, with distances
            last.parts = mergeParts(last.parts, rel.parts);
          } else {
            // "its target two to the left": of its owner; another thing named in the sentence: unclear of what
            const owner = toks[subjectAt - 1] === 'its' ? previous : null;
            const others = toks.slice(0, i).some((x) => {
              const e = entityOf(x);
              return !!e && e.type !== 'player' && e.type !== subject!.type;
            });
            const ref = rel.ref ?? owner ?? (others && subject.type !== 'hole' && subject.type !== 'wall' ? null : PLAYER);
            // "U, R, U, L leaves the box directly under the target": after the moves
            const put = movePhraseSeen && lastMoves && PUT.test(toks[subjectAt - 1] ?? '');
            if (ref)
              emit({
                kind: 'relation',
                subject,
                ref,
                ...(put ? { after: lastMoves! } : {}),
                ...relFields(rel),
                ...(subjectCell ? { located: true } : {}),
                negated: neg,
                span,
              });
          }
        } else pendingRel = rel;
        i = rel.end - 1;
        // "below the hole at (2, 3)": the cell is the reference's
        // "directly to my left at (4, 1)": the subject's
        const at = toks[rel.end] === 'at' ? 1 : 0;
        const refCell = rel.ref ? cellOf(toks[rel.end + at] ?? '') : null;
        if (refCell && rel.ref && !movePhraseSeen) {
          const owner = rel.ref.type === 'player' ? subject : rel.ref;
          if (owner && !(owner.type === 'player' && movePhraseSeen))
            emit({ kind: 'position', entity: owner, cell: refCell, negated: false, span });
          i = rel.end + at;
        }
        continue;
      }
      // "this pushes the box onto the target": an outcome of the moves named last (or decided)
      const outcomeVerb = /^(will|would|should|could|pushes|puts|moves|makes|leads|gets|takes|brings|lets|means|causes|lands)$/;
      if ((/^(this|that|which|it|doing)$/.test(t) && outcomeVerb.test(toks[i + 1] ?? '')) || (t === 'will' && !subject)) {
        const outs = readOutcomes(toks, i + 1, toks.length, neg, cellOf);
        for (const o of outs) emit(outcomeClaim(o, lastMoves ?? undefined, { pushes: false }, span));
        if (outs.length) i = outs[outs.length - 1]!.end - 1;
      }
    }
  }
  return { claims, decisions, convention, paths };
}

/** "below and right" + "one row down, one column right": one relation, with the distances said after it. */
function mergeParts(a: RelationPart[], b: RelationPart[]): RelationPart[] {
  return a.map((p) => {
    const q = b.find((x) => x.dir === p.dir);
    return q?.dist !== undefined ? { ...p, dist: q.dist } : { ...p };
  });
}

function outcomeClaim(
  o: ReadOutcome,
  moves: string[] | undefined,
  push: { pushes: boolean; boxCell?: [number, number] },
  span: [number, number],
): OutcomeClaim {
  const pushesBox = push.pushes;
  return {
    kind: 'outcome',
    outcome: o.outcome,
    ...(o.outcome === 'reach_cell'
      ? { who: push.pushes && o.who === 'either' ? 'either' : o.who === 'box' ? 'box' : o.who === 'player' ? 'player' : 'player' }
      : {}),
    ...(moves ? { moves } : {}),
    ...(pushesBox ? { pushesBox: true } : {}),
    ...(push.boxCell ? { boxCell: push.boxCell } : {}),
    ...(o.cell ? { cell: o.cell } : {}),
    negated: o.negated,
    span,
  };
}

/** "~cell right of me , <0_1> , is a @hole": what one neighbouring cell holds (or does not). */
function readCell(
  toks: string[],
  from: number,
  env: EnvKind,
  prev?: EntityRef,
): { claims: Omit<RelationClaim, 'span'>[]; end: number } | null {
  const rel = readRelation(toks, from, prev);
  if (!rel || rel.parts.length !== 1 || rel.same) return null;
  let k = rel.end;
  while (/^(,|is|are|has|holds|contains|just|currently|a|an)$/.test(toks[k] ?? '') || COORD.test(toks[k] ?? '')) k++;
  let negated = false;
  if (NEGATIONS.has(toks[k] ?? '')) {
    negated = true;
    k++;
    while (/^(a|an)$/.test(toks[k] ?? '')) k++;
  }
  const what = toks[k] ?? '';
  const ref = rel.ref ?? PLAYER;
  const part = { dir: rel.parts[0]!.dir, dist: rel.parts[0]!.dist ?? 1 };
  const claim = (type: EntityType, neg: boolean): Omit<RelationClaim, 'span'> => ({
    kind: 'relation',
    subject: { type, plural: false },
    ref,
    parts: [part],
    adjacent: false,
    direct: true,
    negated: neg,
  });
  const named = entityOf(what);
  if (named && named.type !== 'player') return { claims: [claim(named.type, negated)], end: k + 1 };
  if (/^(safe|frozen|ice|floor|free|empty|open|clear|walkable)$/.test(what)) {
    const not: EntityType[] = env === 'frozenlake' ? ['hole'] : what === 'floor' ? ['wall'] : ['wall', 'box'];
    return { claims: not.map((type) => claim(type, !negated)), end: k + 1 };
  }
  return null;
}

/** Where a count applies: "in row 1", "next to me", or the whole board when the clause ends there. */
function readCount(
  toks: string[],
  from: number,
  cellOf: (tok: string) => [number, number] | null,
): { where: { cell?: [number, number]; adjacent?: boolean }; end: number } | null {
  let k = from;
  while (
    /^(is|are|in|on|at|the|this|that|whole|entire|there|located|lie|lying|sit|sitting|exist|exists|total|all|overall|of|them)$/.test(
      toks[k] ?? '',
    )
  )
    k++;
  const cell = cellOf(toks[k] ?? '');
  if (cell && (Number.isNaN(cell[0]) || Number.isNaN(cell[1]))) return { where: { cell }, end: k + 1 };
  if (toks[k] === '~adj' && /^(@player|to|of)$/.test(toks[k + 1] ?? '')) {
    const p = toks[k + 1] === '@player' ? k + 1 : k + 2;
    if (toks[p] === '@player') return { where: { adjacent: true }, end: p + 1 };
  }
  // "two holes, at (1, 1) and (1, 3)": which ones, not how many there are
  if (toks[k] === ',' && (toks[k + 1] === 'at' || COORD.test(toks[k + 1] ?? ''))) return null;
  if (toks.includes('row') || toks.includes('column') || toks.includes('col')) return null;
  if (k >= toks.length || /^(,|and|:|board|map|grid|lake|level|room|puzzle)$/.test(toks[k]!)) return { where: {}, end: k };
  return null;
}

function relFields(r: RelPhrase): Pick<RelationClaim, 'parts' | 'adjacent' | 'direct' | 'same'> {
  return { parts: r.parts, adjacent: r.adjacent, direct: r.direct, ...(r.same ? { same: r.same } : {}) };
}
