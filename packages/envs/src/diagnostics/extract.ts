import { sentences, type EnvKind } from './normalize.js';

export type Dir = 'up' | 'down' | 'left' | 'right';
export type EntityType = 'player' | 'box' | 'target' | 'hole' | 'goal' | 'wall';

export interface EntityRef {
  type: EntityType;
  /** "boxes", "holes": any of them. */
  plural: boolean;
  /** "box 2": 1-based, in the order the state lists them. */
  index?: number;
}

export interface RelationPart {
  dir: Dir;
  /** Cells along this direction; absent = somewhere that way. */
  dist?: number;
}

export type OutcomeKind = 'blocked' | 'fall' | 'box_on_target' | 'reach_goal' | 'push_box';

interface ClaimBase {
  /** The sentence of the think text the claim comes from. */
  span: [number, number];
  negated: boolean;
}
export interface PositionClaim extends ClaimBase {
  kind: 'position';
  entity: EntityRef;
  cell: [number, number];
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
}
export interface OutcomeClaim extends ClaimBase {
  kind: 'outcome';
  outcome: OutcomeKind;
  /** "pushing the box down": the player first walks behind the box (at `boxCell` when named). */
  pushesBox?: boolean;
  boxCell?: [number, number];
  /** The moves the outcome is predicted for; absent = the turn's decided moves. */
  moves?: string[];
}
export type Claim = PositionClaim | OnTargetClaim | RelationClaim | OutcomeClaim;

export interface Decision {
  span: [number, number];
  moves: string[];
  negated: boolean;
}

export interface Extraction {
  claims: Claim[];
  decisions: Decision[];
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
]);
const MOVE_VERB =
  /^(move|moves|moving|moved|go|goes|going|went|step|stepping|walk|walks|walking|push|pushes|pushing|pushed|head|heads|heading|slide|sliding|travel|travelling|traveling|turn|choose|chooses|choosing|pick|picks|select|selects|take|takes|taking|try|press|use|get|gets|getting)$/;
const DECISION_WORDS = new Set(['plan', 'answer', 'action', 'actions', 'move', 'moves', 'decision', 'choice']);
const HYPOTHETICAL = new Set(['if', 'would', 'could', 'might', 'whether', 'when', 'can', 'unless']);
const MODALS = new Set(['must', 'should', 'needs', 'need', 'has', 'have', 'ought']);

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
  for (; j < toks.length; j++) {
    const t = toks[j]!;
    if (t === '~direct') out.direct = true;
    else if (t === '~adj') out.adjacent = true;
    else if (t === '~samerow') out.same = 'row';
    else if (t === '~samecolumn' || t === '~samecol') out.same = 'column';
    else if (/^\d+$/.test(t) && (UNITS.test(toks[j + 1] ?? '') || DIRS.has(toks[j + 1] ?? ''))) {
      pendingDist = Number(t);
      if (UNITS.test(toks[j + 1]!)) j++;
    } else if (DIRS.has(t)) {
      let dist = pendingDist;
      pendingDist = undefined;
      // "up 2 steps"
      if (dist === undefined && /^\d+$/.test(toks[j + 1] ?? '') && UNITS.test(toks[j + 2] ?? '') && toks[j + 2] !== 'times') {
        dist = Number(toks[j + 1]);
        j += 2;
      }
      out.parts.push(dist === undefined ? { dir: t as Dir } : { dir: t as Dir, dist });
    } else if ((t === 'and' || t === ',' || t === 'to' || t === 'the') && (out.parts.length || out.direct || out.adjacent)) {
      const next = toks[j + 1] ?? '';
      if (!(DIRS.has(next) || /^\d+$/.test(next) || next === '~direct' || next === 'to' || next === 'the')) break;
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
  if (['of', 'from', 'than', 'as', 'relative', 'to'].includes(toks[k] ?? '')) k++;
  if (toks[k] === 'to') k++;
  const ref = toks[k] === 'its' || toks[k] === 'it' ? prev : entityOf(toks[k]);
  if (ref) {
    out.ref = ref;
    j = k + 1;
    // "3 columns left of me and 1 row down": the phrase goes on after its reference
    if (toks[j] === 'and' && (DIRS.has(toks[j + 1] ?? '') || /^\d+$/.test(toks[j + 1] ?? ''))) {
      const more = readRelation(toks, j + 1, prev);
      if (more && !more.ref && more.parts.length) {
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
  [/^(fall|falls|falling|fell|drop|drops|dropping|sink|sinks|sinking|drown|drowns)$/, 'fall'],
  [/^(solve|solves|solving|solved|complete|completes|completing|finish|finishes|win|wins)$/, 'box_on_target'],
  [/^(reach|reaches|reaching|arrive|arrives|arriving)$/, 'reach_goal'],
];

/** Outcome predicted in tokens [from, to): the first outcome word, with negation seen before it. */
function readOutcome(
  toks: string[],
  from: number,
  to: number,
  negatedBefore: boolean,
): { outcome: OutcomeKind; negated: boolean; end: number } | null {
  let neg = negatedBefore;
  for (let j = from; j < to; j++) {
    const t = toks[j]!;
    if (t === 'safe' || t === 'safely') return { outcome: 'fall', negated: true, end: j + 1 };
    if (t === 'freely' || t === 'easily') return { outcome: 'blocked', negated: true, end: j + 1 };
    if (NEGATIONS.has(t)) neg = true;
    if (t === ',' || t === 'so' || t === 'therefore' || t === 'thus') return null;
    const next = toks[j + 1] ?? '';
    let kind = OUTCOME_WORDS.find(([re]) => re.test(t))?.[1];
    if (!kind && (t === 'into' || t === 'in' || t === 'against') && next === '@wall') kind = 'blocked';
    if (!kind && (t === 'into' || t === 'in') && next.startsWith('@hole')) kind = 'fall';
    if (!kind && (t === 'onto' || t === 'on' || t === 'into' || t === 'to') && next.startsWith('@target')) kind = 'box_on_target';
    if (!kind && (t === 'onto' || t === 'on' || t === 'to' || t === 'at') && next === '@goal') kind = 'reach_goal';
    if (!kind && /^(moves|pushes|shifts|slides|move|push|shift|moving|pushing)$/.test(t) && next.startsWith('@box')) kind = 'push_box';
    if (kind) {
      // "hits a wall", "falls into the hole", "reaches the goal": the object belongs to the outcome
      let end = j + 1;
      while (end < to && /^(a|the|into|in|onto|on|to|against|@wall\+?|@hole\+?|@target\+?|@goal)$/.test(toks[end]!)) end++;
      return { outcome: kind, negated: neg, end };
    }
  }
  return null;
}

/**
 * Claims about the state, predicted outcomes and decided moves in a think text. `actionWords`
 * are extra action names (the bandit's arms) that count as moves.
 */
export function extractClaims(think: string, env: EnvKind, actionWords: readonly string[] = [], base: 0 | 1 = 0): Extraction {
  const claims: Claim[] = [];
  const decisions: Decision[] = [];
  const actionSet = new Set(actionWords.map((a) => a.toLowerCase()));
  for (const sentence of sentences(think, env)) {
    const toks = sentence.tokens;
    const span = sentence.span;
    let subject: EntityRef | null = null;
    /** The entity before the subject: what "its" refers to. */
    let previous: EntityRef | null = null;
    let subjectCell: [number, number] | undefined;
    let neg = false;
    let pendingCoord: [number, number] | null = null;
    let pendingRel: RelPhrase | null = null;
    let hypothetical = false;
    let decisionCue = false;
    let modal = false;
    let movePhraseSeen = false;
    const emit = (c: Claim) => {
      claims.push(c);
      neg = false;
    };
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i]!;
      if (NEGATIONS.has(t)) {
        neg = true;
        continue;
      }
      if (t === ',' || t === 'and' || t === 'so') {
        pendingCoord = null;
        pendingRel = null;
      }
      if (HYPOTHETICAL.has(t)) hypothetical = true;
      if (MODALS.has(t) || t === 'will' || t === "'ll" || t === 'let' || t === "let's" || t === 'so' || t === 'therefore' || t === 'thus')
        decisionCue = true;
      if (MODALS.has(t)) modal = true;
      if (DECISION_WORDS.has(t) && (toks[i + 1] === ':' || toks[i + 1] === 'is' || toks[i + 1] === 'are')) {
        const m = readMoves(toks, i + 2, actionSet);
        if (m.moves.length) {
          decisions.push({ span, moves: m.moves, negated: neg });
          neg = false;
          i = m.end - 1;
          movePhraseSeen = true;
          continue;
        }
      }
      const entity = entityOf(t);
      if (entity) {
        if (subject && subject.type !== entity.type) previous = subject;
        subject = entity;
        subjectCell = undefined;
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
      const coord = COORD.exec(t);
      if (coord) {
        // NaN: an open axis ("in row 3"); Infinity: the last row/column ("the bottom left corner")
        const axis = (v: string) =>
          v === 'x' ? NaN : v === 'last' ? Infinity : v.startsWith('o') ? Number(v.slice(1)) - 1 + base : Number(v);
        const cell: [number, number] = [axis(coord[1]!), axis(coord[2]!)];
        // "move left to (2, 2)", "get below it, at (4, 3)": where the player is going, not where it is
        if (['to', 'from', 'toward', 'towards', 'into', 'reach', 'reaches', 'onto'].includes(toks[i - 1] ?? '')) continue;
        if (movePhraseSeen && (!subject || subject.type === 'player')) continue;
        if (subject) {
          emit({ kind: 'position', entity: subject, cell, negated: neg, span });
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
      if (MOVE_VERB.test(t) || actionSet.has(t)) {
        const start = actionSet.has(t) ? i : i + 1;
        const m = readMoves(toks, start, actionSet);
        if (!m.moves.length) continue;
        // "it is safe to go down"
        const safeBefore = toks.slice(Math.max(0, i - 3), i).includes('safe');
        if (safeBefore) emit({ kind: 'outcome', outcome: 'fall', moves: m.moves, negated: !neg, span });
        movePhraseSeen = true;
        const boxMustGo = subject?.type === 'box' && modal && /^(go|goes|move|moves|get|gets)$/.test(t);
        if (boxMustGo) {
          const rel = readRelation(toks, start);
          if (rel) {
            emit({ kind: 'relation', subject: { type: 'target', plural: false }, ref: subject!, ...relFields(rel), negated: neg, span });
            i = rel.end - 1;
          }
          continue;
        }
        const gerund = /ing$/.test(t) && !['is', 'am', 'are', 'be', 'to'].includes(toks[i - 1] ?? '');
        const hypo = hypothetical || gerund;
        const outcome = readOutcome(toks, m.end, toks.length, false);
        const pushes = m.box && /^push/.test(t) ? { pushesBox: true, ...(m.boxCell ? { boxCell: m.boxCell } : {}) } : {};
        if (outcome) emit({ kind: 'outcome', outcome: outcome.outcome, moves: m.moves, ...pushes, negated: outcome.negated !== neg, span });
        const bare = start === i; // an arm name without a verb before it
        const decided = bare
          ? decisionCue
          : decisionCue || i === 0 || subject?.type === 'player' || !subject || /^(choose|pick|select)/.test(t);
        if (!hypo && decided) {
          decisions.push({ span, moves: m.moves, negated: neg });
        }
        neg = false;
        i = (outcome ? outcome.end : m.end) - 1;
        continue;
      }
      const rel = readRelation(toks, i, previous ?? undefined);
      if (rel) {
        if (subject?.type === 'player' && !rel.ref) {
          // "I am on the left": no reference to check against
        } else if (subject) {
          emit({
            kind: 'relation',
            subject,
            ref: rel.ref ?? PLAYER,
            ...relFields(rel),
            ...(subjectCell ? { located: true } : {}),
            negated: neg,
            span,
          });
        } else pendingRel = rel;
        i = rel.end - 1;
        continue;
      }
      // "this pushes the box onto the target": an outcome of the decided moves
      const outcomeVerb = /^(will|would|should|could|pushes|puts|moves|makes|leads|gets|takes|brings|lets|means|causes|lands)$/;
      if ((/^(this|that|which|it|doing)$/.test(t) && outcomeVerb.test(toks[i + 1] ?? '')) || (t === 'will' && !subject)) {
        const outcome = readOutcome(toks, i + 1, toks.length, neg);
        if (outcome) {
          emit({ kind: 'outcome', outcome: outcome.outcome, negated: outcome.negated, span });
          i = outcome.end - 1;
        }
      }
    }
  }
  return { claims, decisions };
}

function relFields(r: RelPhrase): Pick<RelationClaim, 'parts' | 'adjacent' | 'direct' | 'same'> {
  return { parts: r.parts, adjacent: r.adjacent, direct: r.direct, ...(r.same ? { same: r.same } : {}) };
}
