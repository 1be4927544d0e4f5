// Phrase readers: each reads one kind of phrase from a sentence's tokens at a position.
import type { Dir, EntityRef, EntityType, OutcomeClaim, OutcomeKind, RelationClaim, RelationPart } from './claims.js';
import type { EnvKind } from './normalize.js';
import {
  AVOID,
  COORD,
  CONNECTORS,
  DIRS,
  ENTITY,
  MOVE_VERB,
  NEGATIONS,
  OPEN,
  OUTCOME_STOP,
  OUTCOME_WORDS,
  PLACE_VERB,
  PLAYER,
  TOUCH,
  UNITS,
  entityOf,
} from './lexicon.js';

export interface RelPhrase {
  parts: RelationPart[];
  adjacent: boolean;
  direct: boolean;
  same?: 'row' | 'column';
  ref?: EntityRef;
  end: number;
}

/** A run of direction words with distances: "2 steps down and 1 left of the box", "directly above me", "next to". */
export function readRelation(toks: string[], i: number, prev?: EntityRef): RelPhrase | null {
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

export interface MovePhrase {
  moves: string[];
  end: number;
  /** A box was named among the moves ("push the box at (5, 5) down"). */
  box: boolean;
  boxCell?: [number, number];
}

/** "up, up and left", "down 2 times", "left then up", "the box up". */
export function readMoves(toks: string[], i: number, actionWords: Set<string>): MovePhrase {
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

export interface ReadOutcome {
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
export function readOutcomes(
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

/** "below and right" + "one row down, one column right": one relation, with the distances said after it. */
export function mergeParts(a: RelationPart[], b: RelationPart[]): RelationPart[] {
  return a.map((p) => {
    const q = b.find((x) => x.dir === p.dir);
    return q?.dist !== undefined ? { ...p, dist: q.dist } : { ...p };
  });
}

export function outcomeClaim(
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
export function readCell(
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
export function readCount(
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

export function relFields(r: RelPhrase): Pick<RelationClaim, 'parts' | 'adjacent' | 'direct' | 'same'> {
  return { parts: r.parts, adjacent: r.adjacent, direct: r.direct, ...(r.same ? { same: r.same } : {}) };
}
