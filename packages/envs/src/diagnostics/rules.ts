// The claim reader's rules, in the order they are tried on each token of a sentence. A rule reads
// the sentence state at `s.i`, may change it, and returns true when it has consumed the token (and
// any it moved `s.i` over): the rules after it are then skipped for that token. A claim is stamped
// with the name of the rule that emitted it (or a finer name the rule gives), so that bench:diagnostics
// can measure each rule's precision and the checker can withhold the flag of a rule that errs.
import type { Claim, Dir } from './claims.js';
import {
  AVOID,
  COND,
  COORD_LINK,
  DECISION_WORDS,
  DIRS,
  ENTITY,
  HYPOTHETICAL,
  MODALS,
  MOVE_TAIL,
  MOVE_VERB,
  NEGATIONS,
  OUTCOME_STOP,
  PAST,
  PLAN,
  PLAYER,
  PUT,
  SCOPE_END,
  UNITS,
  entityOf,
} from './lexicon.js';
import { mergeParts, outcomeClaim, readCell, readCount, readMoves, readOutcomes, readRelation, relFields } from './phrases.js';
import type { SentenceState } from './sentence-state.js';

export interface Rule {
  name: string;
  /** Reads the token at s.i; true: consumed. */
  read: (s: SentenceState) => boolean;
}

/** Scope: conditions, the past, counterfactuals and plans put what follows off the current board. */
function scope(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  const cellOf = s.text.cellOf;
  const sticky = s.scope === 'cond' || s.scope === 'counter' || s.scope === 'question';
  if (SCOPE_END.test(t) && s.scope !== 'question' && s.scope !== 'counter') s.scope = null;
  else if (s.scope && !sticky && (t === ',' || t === 'and') && !ENTITY.test(toks[i - 1] ?? '')) s.scope = null;
  if (s.scope === 'question') {
    // a question claims nothing
  } else if (
    (t === 'which' && (cellOf(toks[i - 2] ?? '') || cellOf(toks[i - 1] ?? ''))) ||
    (t === 'then' && (entityOf(toks[i + 1]) || toks[i + 1] === 'it') && /^(is|are|will|sits|'s)$/.test(toks[i + 2] ?? '')) ||
    (t === 'then' && toks[i + 1] === '@player')
  ) {
    // "moves the box to (3, 3), which is next to the target", "then the box is at (4, 4)": the state after the move
    s.scope = 'plan';
  } else if (t === 'were' && toks[i + 1] === 'to') s.scope = 'cond';
  else if ((t === 'were' || t === 'had') && (s.scope === 'cond' || i === 0)) s.scope = 'counter';
  else if (PAST.test(t) && (t !== 'last' || /^(move|moves|turn|step|time|action|round)$/.test(toks[i + 1] ?? ''))) {
    if (t !== 'before' || !/^(moving|pushing|going|stepping|@)/.test(toks[i + 1] ?? '')) s.scope = s.scope === 'counter' ? s.scope : 'past';
  } else if (COND.test(t) && !(t === 'after' && /^(that|this|which)$/.test(toks[i + 1] ?? ''))) s.scope = s.scope ?? 'cond';
  else if (
    PLAN.test(t) ||
    (/^(need|needs)$/.test(t) && toks[i + 1] === 'to') ||
    (t === 'from' && /^(there|that)$/.test(toks[i + 1] ?? '')) ||
    ((t === 'will' || t === "'ll") && /^(be|end|have|then)$/.test(toks[i + 1] ?? '')) ||
    (t === 'so' && toks[i + 1] === 'that')
  )
    s.scope = 'plan';
  // "plan: Left, Up": a label, not a plan about the future
  if (t === 'plan' && toks[i + 1] === ':' && s.scope === 'plan') s.scope = null;
  return false;
}

/** Clause starts: a choice word makes the next decision firm; "so", a bare colon forget the subject. */
function clauseStart(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  if (/^(choose|chooses|chose|pick|picks|select|selects|decide|decided|decision|final|settle|opt|instead|actually|answer)$/.test(t))
    s.firmCue = true;
  // "so push up": a new clause, whoever was spoken of before
  if (/^(so|therefore|thus|hence)$/.test(t)) s.subject = null;
  // "between me and it: (4, 3)": the coordinates after a colon are not the last word's
  if (t === ':' && !entityOf(toks[i - 1])) s.subject = null;
  return false;
}

/** Negation: "not", "no", "avoid" … opens a negation for the next claim. */
function negation(s: SentenceState): boolean {
  const t = s.toks[s.i]!;
  if (!NEGATIONS.has(t)) return false;
  s.neg = true;
  s.avoidNeg = AVOID.test(t);
  return true;
}

/** Clause ends: pending coordinates and relations are dropped; a negation ends with its clause. */
function clauseEnd(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  if (t === ',' || t === 'and' || t === 'so') {
    s.pendingCoord = null;
    s.pendingRel = null;
  }
  // "that isn't the target, since the target is at (2, 4)": a negation ends with its clause
  if (/^(,|since|because|though|which|:|as)$/.test(t) || (t === 'and' && ENTITY.test(toks[i + 1] ?? ''))) s.neg = false;
  return false;
}

/** Hypotheticals: moves named after "if", "would", the past … are not decided. */
function hypothetical(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  // "I'd rather go right", "I would prefer left": a choice, not a hypothetical
  const preference = /^(would|'d)$/.test(t) && /^(rather|prefer|choose|pick|go)$/.test(toks[i + 1] ?? '');
  if (preference) {
    s.firmCue = true;
    s.decisionCue = true;
  } else if (HYPOTHETICAL.has(t) || t === 'once' || t === "'d" || (t === 'after' && !/^(that|this)$/.test(toks[i + 1] ?? '')))
    s.hypothetical = true;
  if (PAST.test(t) && t !== 'before') s.hypothetical = true;
  if (SCOPE_END.test(t)) s.hypothetical = false;
  return false;
}

/** Decision cues: "now", modals, "let's", "so" make the moves that follow a decision. */
function decisionCues(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  if (t === 'now' && i > 0) {
    // "so I go up now": the move of this turn
    const last = s.text.decisions.at(-1);
    if (last && last.span === s.span && MOVE_TAIL.test(toks[i - 1] ?? '')) last.firm = true;
    else s.firmCue = true;
  }
  if (MODALS.has(t) || t === 'will' || t === "'ll" || t === 'let' || t === "let's" || t === 'so' || t === 'therefore' || t === 'thus')
    s.decisionCue = true;
  if (MODALS.has(t)) s.modal = true;
  return false;
}

/** "plan: Left, Up", "my answer is Down", "answer Right": a labelled decision. */
function decisionLabel(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  const bareAnswer = /^(answer|final)$/.test(t) && DIRS.has(toks[i + 1] ?? '');
  if (!((DECISION_WORDS.has(t) && (toks[i + 1] === ':' || toks[i + 1] === 'is' || toks[i + 1] === 'are')) || bareAnswer)) return false;
  if (bareAnswer) s.firmCue = true;
  const m = readMoves(toks, bareAnswer ? i + 1 : i + 2, s.text.actionSet);
  if (!m.moves.length) return false;
  if (!s.hypothetical || toks[i + 1] === ':') {
    if (/^(answer|decision|choice)$/.test(t)) s.firmCue = true;
    s.decide(m.moves, s.neg);
  }
  s.text.lastMoves = m.moves;
  s.neg = false;
  s.i = m.end - 1;
  s.movePhraseSeen = true;
  return true;
}

/** Cell talk: "the cell to my right, (0, 1), is a hole", "the square above me is free". */
function cellTalk(s: SentenceState): boolean {
  const { toks, i } = s;
  if (toks[i] !== '~cell') return false;
  s.cellTalk = true;
  const said = readCell(toks, i + 1, s.text.env, (s.subject && s.subject.type !== 'player' ? s.subject : s.previous) ?? undefined);
  if (!said) return false;
  for (const c of said.claims) s.emit({ ...c, negated: c.negated !== s.neg, span: s.span });
  s.i = said.end - 1;
  return true;
}

/** "Right is my move", "left is the best choice". */
function moveIsMyChoice(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  if (!(DIRS.has(t) && toks[i + 1] === 'is' && /^(my|the|our)$/.test(toks[i + 2] ?? ''))) return false;
  const k = /^(best|final|only|right|safest|correct)$/.test(toks[i + 3] ?? '') ? i + 4 : i + 3;
  if (!/^(move|choice|answer|pick|decision|action|option|call)$/.test(toks[k] ?? '')) return false;
  s.firmCue = true;
  s.decide([t], s.neg);
  s.text.lastMoves = [t];
  s.neg = false;
  s.i = k;
  return true;
}

/** Subject: a thing named ("the box", "it is …") becomes what the sentence is about. Never consumes. */
function subject(s: SentenceState): boolean {
  const { toks, i, text } = s;
  const t = toks[i]!;
  // "it is at (2, 3)": the last thing named
  const pronoun: boolean =
    (t === 'it' || t === "it's") &&
    !!text.lastThing &&
    (t === "it's" || /^(is|sits|lies|rests|stands|remains|'s)$/.test(toks[i + 1] ?? ''));
  const named = pronoun ? text.lastThing : entityOf(t);
  const entity = named && s.which && !named.plural ? { ...named, which: s.which } : named;
  s.which = undefined;
  s.entityHere = entity;
  s.pronounHere = pronoun;
  if (!entity) return false;
  s.cellTalk = false;
  if (toks[i - 1] === 'and' && entityOf(toks[i - 2])) s.conj = entityOf(toks[i - 2]);
  if (s.subject && s.subject.type !== entity.type) s.previous = s.subject;
  s.subject = entity;
  s.subjectAt = i;
  if (entity.type !== 'player') text.lastThing = entity;
  s.subjectCell = undefined;
  return false;
}

/** Counts: "exactly 2 holes in row 1", "3 holes", "1 hole next to me", "row 2 has two holes". */
function count(s: SentenceState): boolean {
  const entity = s.entityHere;
  if (!entity) return false;
  const { toks, i } = s;
  const cellOf = s.text.cellOf;
  const n = /^\d+$/.test(toks[i - 1] ?? '') ? Number(toks[i - 1]) : null;
  // "the two boxes", "both holes": which ones, not how many
  const definite = /^(the|both|these|those|my|its)$/.test(toks[i - 2] ?? '');
  if (n === null || s.pronounHere || definite || entity.type === 'wall' || entity.type === 'player') return false;
  // "row 2 has two holes": the row named just before
  const has = /^(has|have|holds|contains|contain)$/.test(toks[i - 2] ?? '') ? cellOf(toks[i - 3] ?? '') : null;
  const before = has && (Number.isNaN(has[0]) || Number.isNaN(has[1])) ? has : null;
  const where = before ? { where: { cell: before }, end: i + 1 } : readCount(toks, i + 1, cellOf);
  if (!where) return false;
  if (before) s.pendingCoord = null;
  const negatedCount = s.neg && (NEGATIONS.has(toks[i - 2] ?? '') || NEGATIONS.has(toks[i - 3] ?? ''));
  s.emit({ kind: 'count', entity, count: n, ...where.where, negated: negatedCount, span: s.span });
  s.i = where.end - 1;
  return true;
}

/** "at (2, 3) is the box", "below me is a hole": a coordinate or relation said before its subject. */
function beforeSubject(s: SentenceState): boolean {
  const entity = s.entityHere;
  if (!entity) return false;
  if (s.pendingCoord) {
    s.emit({ kind: 'position', entity, cell: s.pendingCoord, negated: s.neg, span: s.span }, 'coordinate-before-subject');
    s.subjectCell = s.pendingCoord;
    s.pendingCoord = null;
  }
  if (s.pendingRel) {
    const rel = s.pendingRel;
    s.emit(
      { kind: 'relation', subject: entity, ref: rel.ref ?? PLAYER, ...relFields(rel), negated: s.neg, span: s.span },
      'relation-before-subject',
    );
    s.pendingRel = null;
  }
  return true;
}

/** Coordinates: "the box at (2, 3)", "player: (4, 1)": where the subject is. */
function coordinate(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  const cell = s.text.cellOf(t);
  if (!cell) return false;
  const { subject } = s;
  // "move left to (2, 2)", "get below it, at (4, 3)": where the player is going, not where it is
  if (['to', 'from', 'toward', 'towards', 'into', 'reach', 'reaches', 'onto'].includes(toks[i - 1] ?? '')) return true;
  if (s.movePhraseSeen && (!subject || subject.type === 'player')) return true;
  // "B1: r2c4": a key this reader does not know; the coordinate is not the last subject's
  if ((toks[i - 1] === ':' || toks[i - 1] === '=') && !entityOf(toks[i - 2])) return true;
  // "below the top row", "left of (2, 2)": a place things are related to
  if (DIRS.has(toks[i - 1] ?? '') || (toks[i - 1] === 'of' && DIRS.has(toks[i - 2] ?? ''))) return true;
  // "the (3, 4) target": the next thing's
  if (entityOf(toks[i + 1]) && /^(the|a|an)$/.test(toks[i - 1] ?? '')) {
    s.pendingCoord = cell;
    return true;
  }
  // "the cell past it, (3, 1)", "then empty (4, 3)": a cell that is not the subject's
  if (s.cellTalk || !(COORD_LINK.test(toks[i - 1] ?? '') || entityOf(toks[i - 1]) || i === 0)) return true;
  // "(3, 2) is plain floor", "(1, 2) free": what a cell holds, not where the subject is
  const said = toks[i + 1] === 'is' ? toks[i + 2] : toks[i + 1];
  if (said && /^(plain|floor|free|empty|open|clear|ice|frozen|safe|blank|walkable)$/.test(said)) return true;
  if (subject) {
    s.emit({ kind: 'position', entity: subject, cell, negated: s.neg, span: s.span, ...(/<o|_o/.test(t) ? { ordinal: true } : {}) });
    s.subjectCell = cell;
  } else s.pendingCoord = cell;
  return true;
}

/** "the box is on the target". */
function onTarget(s: SentenceState): boolean {
  const { toks, i, subject } = s;
  const t = toks[i]!;
  const linked = /^(is|are|sits|sit|stands|standing|lies|rests|already|now|,|currently)$/.test(toks[i - 1] ?? '');
  const onTargetSubject = subject?.type === 'box' || subject?.type === 'player';
  if (!((t === 'on' || t === 'onto') && toks[i + 1]?.startsWith('@target') && onTargetSubject && linked && !s.movePhraseSeen)) return false;
  s.emit({ kind: 'on_target', entity: subject!, ...(s.subjectCell ? { cell: s.subjectCell } : {}), negated: s.neg, span: s.span });
  s.i++;
  return true;
}

const PATH_VERB =
  /^(gets?|takes?|leads?|puts?|brings?|lands?|leaves?|reaches|reach|will|would|should|ends?|moves?|pushes|shoves?|keeps?|is|are|sends?|drops?|walks?|hits?|never|avoids?|stays?|goes|can|hugs?|follows?|finishes|solves)$/;

/** Move lists: "Right, Right, Down gets me to the goal" (a stated path and what it does), or "so Left." (a bare decision). */
function moveList(s: SentenceState): boolean {
  const { toks, i, text } = s;
  const t = toks[i]!;
  const listStart =
    DIRS.has(t) &&
    !entityOf(toks[i + 1]) &&
    (i === 0 || /^(,|:|sequence|path|route|moves|going|then|plan|so|therefore|thus|hence|instead|ok|okay|go)$/.test(toks[i - 1]!));
  if (!listStart) return false;
  const m = readMoves(toks, i, text.actionSet);
  const after = m.end;
  // "Down takes me to (3, 1), then Right twice reaches the goal": from where the last moves ended
  if (/^(then|there)$/.test(toks[i - 1] ?? '') && text.lastMoves) m.moves = [...text.lastMoves, ...m.moves];
  if (m.moves.length && (PATH_VERB.test(toks[after] ?? '') || (m.moves.length > 1 && toks[after] && !OUTCOME_STOP.has(toks[after]!)))) {
    // a stated path: what it does is checked, and it is one reading of the turn's decision
    if (m.moves.length > 1) text.paths.push(m.moves);
    const outs = readOutcomes(toks, after, toks.length, s.neg, text.cellOf);
    for (const o of outs) s.emit(outcomeClaim(o, m.moves, { pushes: m.box }, s.span));
    text.lastMoves = m.moves;
    if (outs.length || /^(puts?|takes?|brings?|leaves?|gets?|lands?)$/.test(toks[after] ?? '')) {
      s.movePhraseSeen = true;
      s.i = outs.length ? outs[outs.length - 1]!.end - 1 : after;
      return true;
    }
  }
  // "so Left." / ": Left" / "Right.": a bare decision closing a clause or making a sentence
  // "So Left, not Down": the rejected move after it changes nothing
  const rest = toks.slice(m.end).filter((x) => x !== ',');
  while (rest[0] === 'now' || rest[0] === 'instead') rest.shift();
  const closes = !rest.length || (NEGATIONS.has(rest[0]!) && rest.slice(1).every((x) => DIRS.has(x) || x === 'or' || x === 'and'));
  if (m.moves.length && closes && (i === 0 || /^(so|therefore|thus|hence|:|instead|ok|okay|go)$/.test(toks[i - 1]!)) && !s.hypothetical) {
    s.firmCue = true;
    s.decide(m.moves, s.neg);
    text.lastMoves = m.moves;
    s.neg = false;
    s.i = m.end - 1;
    return true;
  }
  return false;
}

/** A move verb: "push the box up twice", "going left lands me on the goal", "I'll go down". */
function moveVerb(s: SentenceState): boolean {
  const { toks, i, text, subject } = s;
  const t = toks[i]!;
  if (!(MOVE_VERB.test(t) || text.actionSet.has(t))) return false;
  const start = text.actionSet.has(t) ? i : i + 1;
  const m = readMoves(toks, start, text.actionSet);
  // "get below it, at (4, 3)": a destination follows
  if (!m.moves.length && (DIRS.has(toks[start] ?? '') || toks[start] === 'to')) s.movePhraseSeen = true;
  if (!m.moves.length) return true;
  const movesBefore: string[] | null = text.lastMoves;
  text.lastMoves = m.moves;
  // "it is safe to go down"
  const safeBefore = toks.slice(Math.max(0, i - 3), i).includes('safe');
  if (safeBefore) s.emit({ kind: 'outcome', outcome: 'fall', moves: m.moves, negated: !s.neg, span: s.span }, 'safe-to-move');
  s.movePhraseSeen = true;
  const boxMustGo = subject?.type === 'box' && s.modal && /^(go|goes|move|moves|get|gets)$/.test(t);
  if (boxMustGo) {
    const rel = readRelation(toks, start);
    if (rel) {
      // "the box needs to go 2 up": where the target is, said as a plan
      const c: Claim = {
        kind: 'relation',
        subject: { type: 'target', plural: false },
        ref: subject!,
        ...relFields(rel),
        negated: s.neg,
        span: s.span,
        rule: 'box-must-go',
      };
      if (s.scope === 'plan') text.claims.push(c);
      else s.emit(c, 'box-must-go');
      s.neg = false;
      s.i = rel.end - 1;
    }
    // what follows ("and then right two") is the rest of the plan
    while (s.i + 1 < toks.length && !/^(,|so|therefore|thus)$/.test(toks[s.i + 1]!)) s.i++;
    return true;
  }
  const gerund = /ing$/.test(t) && !['is', 'am', 'are', 'be', 'to'].includes(toks[i - 1] ?? '');
  const hypo = s.hypothetical || gerund;
  const outs = readOutcomes(toks, m.end, toks.length, false, text.cellOf);
  // "pushing it down": the box named last, where it was said to be
  const it = toks.slice(start, m.end).includes('it') && text.lastThing?.type === 'box';
  const pushes = (m.box || it) && /^push/.test(t);
  const boxCell = m.boxCell ?? (it ? text.lastBoxCell : undefined);
  const seq: string[] = /^(then|there)$/.test(toks[i - 1] ?? '') && movesBefore ? [...movesBefore, ...m.moves] : m.moves;
  text.lastMoves = seq;
  // "nothing blocks me going up: (2, 4) is open": an adjective like "open" carries its own polarity
  for (const o of outs)
    s.emit(outcomeClaim({ ...o, negated: o.own ? o.negated : o.negated !== s.neg }, pushes ? m.moves : seq, { pushes, boxCell }, s.span));
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
        ? s.decisionCue
        : s.decisionCue || i === 0 || subject?.type === 'player' || !subject || /^(choose|pick|select)/.test(t);
  // "Moving right." / "Pushing Right now." / "Going Up to reach the other box.": the model's way of saying what it does
  const tail = toks.slice(m.end);
  const statedAlone =
    gerund &&
    i === 0 &&
    !s.hypothetical &&
    (!tail.length ||
      ((tail[0] === 'now' || tail[0] === 'instead') && !outs.length) ||
      (tail[0] === 'to' && !outs.some((o) => o.outcome !== 'reach_goal')));
  if (tail[0] === 'now' || tail[0] === 'instead') s.firmCue = true;
  if ((!hypo && decided) || statedAlone) s.decide(m.moves, s.neg);
  s.neg = false;
  s.i = (outs.length ? outs[outs.length - 1]!.end : m.end) - 1;
  return true;
}

/** "the goal is 3 steps away", "I am 2 moves from the goal". */
function distance(s: SentenceState): boolean {
  const { toks, i, subject } = s;
  const t = toks[i]!;
  if (!(/^\d+$/.test(t) && UNITS.test(toks[i + 1] ?? '') && subject)) return false;
  const k = i + 2;
  const ref =
    toks[k] === 'away'
      ? toks[k + 1] === 'from'
        ? entityOf(toks[k + 2])
        : PLAYER
      : /^(from|of)$/.test(toks[k] ?? '')
        ? entityOf(toks[k + 1])
        : null;
  if (!ref || DIRS.has(toks[k - 1] ?? '')) return false;
  s.emit({ kind: 'distance', subject, ref, dist: Number(t), negated: s.neg, span: s.span });
  s.i = k;
  return true;
}

/** "so not Right", "Not Right -- that's the hole": a move turned down, not a place. */
function moveRefused(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  if (!(DIRS.has(t) && NEGATIONS.has(toks[i - 1] ?? '') && !/^(of|from|than|~direct)$/.test(toks[i + 1] ?? '') && !entityOf(toks[i + 1])))
    return false;
  const m = readMoves(toks, i, s.text.actionSet);
  if (!m.moves.length) return false; // "not above it": a place, not a refused move
  s.decide(m.moves, true);
  s.neg = false;
  s.i = m.end - 1;
  return true;
}

/** "Down is a hole": the cell that move reaches. */
function directionHoldsThing(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  if (!(DIRS.has(t) && toks[i + 1] === 'is' && (i === 0 || /^(,|and|so|but|:)$/.test(toks[i - 1]!)))) return false;
  let k = i + 2;
  const notSaid = NEGATIONS.has(toks[k] ?? '');
  if (notSaid) k++;
  while (/^(a|an|the)$/.test(toks[k] ?? '')) k++;
  const what = entityOf(toks[k]);
  if (!(what && (what.type === 'hole' || what.type === 'wall' || what.type === 'box'))) return false;
  s.emit({
    kind: 'relation',
    subject: { type: what.type, plural: false },
    ref: PLAYER,
    parts: [{ dir: t as Dir, dist: 1 }],
    adjacent: false,
    direct: true,
    negated: notSaid,
    span: s.span,
  });
  s.i = k;
  return true;
}

/** "pushing Left is right", "going down is the best move": a decision. */
function moveJudgedBest(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  if (!(
    DIRS.has(t) &&
    /ing$/.test(toks[i - 1] ?? '') &&
    MOVE_VERB.test(toks[i - 1]!) &&
    toks[i + 1] === 'is' &&
    /^(right|correct|best|the|my|good|fine|safest|wise)$/.test(toks[i + 2] ?? '')
  ))
    return false;
  s.firmCue = true;
  s.decide([t], s.neg);
  s.i += 2;
  return true;
}

/** "right is fine", "Down is safe": what the move does, said of the move. */
function moveJudgedSafe(s: SentenceState): boolean {
  const { toks, i } = s;
  const t = toks[i]!;
  if (!(DIRS.has(t) && /^(is|looks|seems)$/.test(toks[i + 1] ?? '') && (i === 0 || /^(,|and|so|but|:)$/.test(toks[i - 1]!)))) return false;
  const adj = toks[i + 2] === 'not' ? toks[i + 3] : toks[i + 2];
  const notSaid = toks[i + 2] === 'not';
  if (!/^(fine|safe|ok|okay|open|free|clear|possible|available)$/.test(adj ?? '')) return false;
  const outcome = s.text.env === 'frozenlake' && /^(fine|safe|ok|okay)$/.test(adj!) ? 'fall' : 'blocked';
  s.emit({ kind: 'outcome', outcome, moves: [t], negated: !notSaid, span: s.span });
  s.i += notSaid ? 3 : 2;
  return true;
}

/** Relations: "the box is two steps above me", "the goal and I are in the same row", "moving left puts me next to a hole". */
function relation(s: SentenceState): boolean {
  const { toks, i, text } = s;
  const rel = readRelation(toks, i, s.previous ?? undefined);
  if (!rel) return false;
  // "the left box", "the upper hole": which one, not where it is from me
  if (
    rel.parts.length <= 2 &&
    entityOf(toks[i + rel.parts.length]) &&
    toks[i + rel.parts.length] !== '@player' &&
    rel.end === i + rel.parts.length + 1 &&
    (i === 0 || /^(the|a|an|that|this|which|,|:)$/.test(toks[i - 1] ?? ''))
  ) {
    if (toks[i - 1] === 'the' && rel.parts.length === 1) s.which = rel.parts[0]!.dir;
    s.i += rel.parts.length - 1;
    return true;
  }
  // "below (2, 2)": relative to a place, not to me
  if (!rel.ref && text.cellOf(toks[rel.end] ?? '')) {
    s.i = rel.end;
    return true;
  }
  const subject = s.subject;
  // "the goal and I are in the same row", "the box and the target are next to each other"
  if (!rel.ref && s.conj && subject && (rel.same || toks[rel.end] === 'each' || toks[rel.end] === 'one') && !rel.parts.length)
    rel.ref = s.conj;
  // "the two boxes do not share a row": between the things named
  if (!rel.ref && subject?.plural && rel.same && !rel.parts.length) rel.ref = subject;
  if (subject?.type === 'player' && !rel.ref) {
    // "I am on the left": no reference to check against
  } else if (subject?.type === 'player' && s.movePhraseSeen) {
    // "moving left puts me next to a hole": checked after the moves; "come around on top of it": a plan
    const put =
      toks[i - 1] === '@player' && /^(puts|put|takes|take|brings|bring|leaves|leave|lands|land|gets|get|places)$/.test(toks[i - 2] ?? '');
    if (put && text.lastMoves && rel.ref)
      s.emit(
        { kind: 'relation', subject, ref: rel.ref, ...relFields(rel), after: text.lastMoves, negated: s.neg, span: s.span },
        'relation-after-moves',
      );
    else if (put && text.lastMoves && !rel.ref)
      s.emit(
        {
          kind: 'relation',
          subject: { type: 'hole', plural: true },
          ref: subject,
          ...relFields(rel),
          after: text.lastMoves,
          negated: s.neg,
          span: s.span,
        },
        'relation-after-moves',
      );
  } else if (subject) {
    const last = text.claims.at(-1);
    const elaborates =
      !rel.ref &&
      last?.kind === 'relation' &&
      last.span === s.span &&
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
      const owner = toks[s.subjectAt - 1] === 'its' ? s.previous : null;
      const others = toks.slice(0, i).some((x) => {
        const e = entityOf(x);
        return !!e && e.type !== 'player' && e.type !== subject.type;
      });
      const ref = rel.ref ?? owner ?? (others && subject.type !== 'hole' && subject.type !== 'wall' ? null : PLAYER);
      // "U, R, U, L leaves the box directly under the target": after the moves
      const put = s.movePhraseSeen && text.lastMoves && PUT.test(toks[s.subjectAt - 1] ?? '');
      if (ref)
        s.emit(
          {
            kind: 'relation',
            subject,
            ref,
            ...(put ? { after: text.lastMoves! } : {}),
            ...relFields(rel),
            ...(s.subjectCell ? { located: true } : {}),
            negated: s.neg,
            span: s.span,
          },
          put ? 'relation-after-moves' : undefined,
        );
    }
  } else s.pendingRel = rel;
  s.i = rel.end - 1;
  // "below the hole at (2, 3)": the cell is the reference's
  // "directly to my left at (4, 1)": the subject's
  const at = toks[rel.end] === 'at' ? 1 : 0;
  const refCell = rel.ref ? text.cellOf(toks[rel.end + at] ?? '') : null;
  if (refCell && rel.ref && !s.movePhraseSeen) {
    const owner = rel.ref.type === 'player' ? subject : rel.ref;
    if (owner && !(owner.type === 'player' && s.movePhraseSeen))
      s.emit({ kind: 'position', entity: owner, cell: refCell, negated: false, span: s.span }, 'relation-reference-cell');
    s.i = rel.end + at;
  }
  return true;
}

const OUTCOME_VERB = /^(will|would|should|could|pushes|puts|moves|makes|leads|gets|takes|brings|lets|means|causes|lands)$/;

/** "this pushes the box onto the target": an outcome of the moves named last (or decided). */
function outcomeOfLastMoves(s: SentenceState): boolean {
  const { toks, i, text } = s;
  const t = toks[i]!;
  if (!((/^(this|that|which|it|doing)$/.test(t) && OUTCOME_VERB.test(toks[i + 1] ?? '')) || (t === 'will' && !s.subject))) return false;
  const outs = readOutcomes(toks, i + 1, toks.length, s.neg, text.cellOf);
  for (const o of outs) s.emit(outcomeClaim(o, text.lastMoves ?? undefined, { pushes: false }, s.span));
  if (outs.length) s.i = outs[outs.length - 1]!.end - 1;
  return true;
}

/** The rules in the order they are tried; the first that consumes a token ends its reading. */
export const RULES: readonly Rule[] = [
  { name: 'scope', read: scope },
  { name: 'clause-start', read: clauseStart },
  { name: 'negation', read: negation },
  { name: 'clause-end', read: clauseEnd },
  { name: 'hypothetical', read: hypothetical },
  { name: 'decision-cues', read: decisionCues },
  { name: 'decision-label', read: decisionLabel },
  { name: 'cell-talk', read: cellTalk },
  { name: 'move-is-my-choice', read: moveIsMyChoice },
  { name: 'subject', read: subject },
  { name: 'count', read: count },
  { name: 'before-subject', read: beforeSubject },
  { name: 'coordinate', read: coordinate },
  { name: 'on-target', read: onTarget },
  { name: 'move-list', read: moveList },
  { name: 'move-verb', read: moveVerb },
  { name: 'distance', read: distance },
  { name: 'move-refused', read: moveRefused },
  { name: 'direction-holds-thing', read: directionHoldsThing },
  { name: 'move-judged-best', read: moveJudgedBest },
  { name: 'move-judged-safe', read: moveJudgedSafe },
  { name: 'relation', read: relation },
  { name: 'outcome-of-last-moves', read: outcomeOfLastMoves },
];
