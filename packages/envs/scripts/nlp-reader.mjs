// A second reader of think texts, built on a general NLP library (compromise or wink-nlp: tokens,
// part-of-speech tags, clauses, negation) instead of the rule table (src/diagnostics/rules.ts). It emits
// the same claim objects (claims.ts) so the same verify step judges them. It reads only statements
// about the current board (where things are and how they lie to each other); conditions, plans, the
// past and moves are left to the rule table. Used by nlp-judge.mjs; not part of the shipped checker.
import nlp from 'compromise';
import winkNLP from 'wink-nlp';
import winkModel from 'wink-eng-lite-web-model';
import { garbledReason, sentenceForm } from '../dist/index.js';
import { isPlanSentence } from '../dist/diagnostics/sentence-form.js';

/** Nouns that name a thing on the board, per environment ("goal" is the target in Sokoban). */
const NOUNS = {
  sokoban: { box: 'box', crate: 'box', block: 'box', target: 'target', goal: 'target', storage: 'target', dock: 'target' },
  frozenlake: { hole: 'hole', pit: 'hole', hazard: 'hole', goal: 'goal', target: 'goal', gift: 'goal', frisbee: 'goal', present: 'goal' },
};
const COMMON_NOUNS = { wall: 'wall', player: 'player', agent: 'player', character: 'player' };
const ME = new Set(['i', 'me', 'myself', 'my']);
const DIR_WORDS = {
  left: 'left',
  west: 'left',
  right: 'right',
  east: 'right',
  above: 'up',
  over: 'up',
  up: 'up',
  north: 'up',
  upward: 'up',
  upwards: 'up',
  below: 'down',
  under: 'down',
  beneath: 'down',
  underneath: 'down',
  down: 'down',
  south: 'down',
  downward: 'down',
  downwards: 'down',
};
const DIRECT = new Set(['directly', 'immediately', 'just', 'straight', 'exactly']);
const ADJACENT = new Set(['adjacent', 'beside', 'neighbouring', 'neighboring', 'touching']);
const UNIT = /^(squares?|cells?|steps?|spaces?|tiles?|columns?|cols?|rows?|positions?|places?|blocks?)$/;
const NUMBER = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, a: 1, an: 1, single: 1 };
const ORDINAL = { first: 1, second: 2, third: 3, fourth: 4 };
const WHICH = { lower: 'down', bottom: 'down', upper: 'up', top: 'up', leftmost: 'left', rightmost: 'right' };
/** A condition: the whole sentence is off the current board. */
const CONDITION = /^(if|unless|suppose|supposing|assuming|imagine|once|after|until|when|whenever)$/;
/** A wish, a plan, the future or the past: the clause is off the current board. */
const OFF_BOARD =
  /^(would|could|might|should|will|shall|can|want|plan|planning|hope|try|trying|need|needs|must|then|before|later|eventually|previously|earlier|originally|initially|'ll|'d)$/;
/** A clause that moves something speaks of what happens, not of where things are. */
const MOVE_VERB =
  /^(move|moves|moving|moved|go|goes|going|went|push|pushes|pushing|pushed|step|steps|stepping|walk|walks|walking|head|heading|slide|sliding|travel|reach|reaches|reaching|get|gets|getting|put|puts|lead|leads|take|takes|land|lands|end|ends|fall|falls)$/;
/** Between a thing and its cell: "the box is at (2, 3)", "the hole, (1, 1)". */
const CELL_LINK =
  /^(at|is|are|am|'m|on|in|located|sits|sit|lies|lie|stands|standing|sitting|currently|now|still|position|cell|square|the)$/;
const VAGUE =
  /^(near|nearby|close|around|between|far|farther|further|toward|towards|beyond|past|somewhere|corner|edge|border|half|region|area|path|way|route|line|share|shares)$/;

const CELL_TOKEN = /^zc(\d+)x(\d+)$/;
/** "the top left corner" as one token (`zktl`): FrozenLake's corners are cells; a Sokoban room's are walls. */
const CORNER_TOKEN = /^zk([tb])([lr])$/;
const CORNER = /\b(?:the )?(?:(top|upper|bottom|lower)[- ]?(left|right)|(left|right)[- ]?(top|upper|bottom|lower)) corner\b/gi;
/** Cells as texts write them: "(2, 3)", "[2, 3]", "(row 2, col 3)", "row 2, column 3", "r2c3". */
const COORDS = [
  /[([]\s*(\d+)\s*,\s*(\d+)\s*[)\]]/g,
  /[([]?\s*\brow\s*(\d+)\s*,?\s*(?:and\s+)?col(?:umn)?\s*(\d+)\s*[)\]]?/gi,
  /\br(\d+)\s*c(\d+)\b/gi,
];
/** A statement about a statement ("it is not true that …"): left to the rule table. */
const META = /\b(true|false|untrue|wrong|correct|mistaken|incorrect)\b/i;
/** Participles that say where a thing is, not what happened before. */
const STATIVE = /^(located|positioned|placed|situated|surrounded|stuck|blocked|trapped|boxed)$/;

/** Sentences of a think text with their offsets: split after . ! ? ; or a line break outside brackets. */
export function splitSentences(think) {
  const out = [];
  let start = 0;
  let depth = 0;
  for (let i = 0; i < think.length; i++) {
    const ch = think[i];
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth = Math.max(0, depth - 1);
    const end = ch === '\n' || (depth === 0 && /[.!?;]/.test(ch) && (i + 1 === think.length || /\s/.test(think[i + 1])));
    if (end || i + 1 === think.length) {
      const to = ch === '\n' ? i : i + 1;
      const text = think.slice(start, to);
      const lead = text.length - text.trimStart().length;
      if (text.trim()) out.push({ span: [start + lead, start + text.trimEnd().length], text: text.trim() });
      start = i + 1;
    }
  }
  return out;
}

const wordOf = (s) => s.toLowerCase().replace(/[^a-z0-9']/g, '');

/** Terms of a sentence as compromise tags them, one clause after another. */
function compromiseClauses(prepared) {
  return nlp(prepared)
    .clauses()
    .json()
    .map((clause) =>
      clause.terms.map((t) => ({
        // a contraction's second half ("I'm" → i, am) has no text of its own
        w: wordOf(String(t.normal || t.implicit || t.text)),
        tags: new Set(t.tags),
      })),
    );
}

let wink;
/** wink-nlp's universal part of speech and lemma, mapped to the tags the reader asks about. */
function winkTags(word, pos, lemma) {
  const tags = new Set();
  if (/^(not|no|never|nothing|none)$/.test(word)) tags.add('Negative');
  if (pos === 'NOUN' && lemma !== word) tags.add('Plural');
  if ((pos === 'VERB' || pos === 'AUX') && lemma !== word && (/ed$/.test(word) || /^(was|were|had)$/.test(word))) tags.add('PastTense');
  return tags;
}

/**
 * Terms of a sentence as wink-nlp tags them, split into clauses at , ; : and at a conjunction that
 * starts a new clause ("and the box is …", but not "1 up and 2 left").
 */
function winkClauses(prepared) {
  wink ??= winkNLP(winkModel);
  const its = wink.its;
  const tokens = wink.readDoc(prepared).tokens();
  const words = tokens.out(its.normal);
  const pos = tokens.out(its.pos);
  const lemmas = tokens.out(its.lemma);
  const clauses = [[]];
  words.forEach((raw, i) => {
    const word = raw === "n't" ? 'not' : wordOf(raw);
    const opens = /^(DET|PRON|PROPN)$/.test(pos[i + 1] ?? '') && !CELL_TOKEN.test(wordOf(words[i + 1] ?? ''));
    if (/^[,;:]$/.test(raw) || /^(but|so|because|since|while|whereas)$/.test(word) || (word === 'and' && opens)) {
      if (clauses[clauses.length - 1].length) clauses.push([]);
      return;
    }
    if (word) clauses[clauses.length - 1].push({ w: word, tags: winkTags(word, pos[i], lemmas[i]) });
  });
  return clauses.filter((c) => c.length);
}

const PARSERS = { compromise: compromiseClauses, wink: winkClauses };

/** Terms of a sentence, clause by clause, with cells written as one token (`zc2x3`). */
function clausesOf(text, parser) {
  const prepared = COORDS.reduce((t, re) => t.replace(re, (_m, r, c) => ` zc${r}x${c} `), text)
    .replace(CORNER, (_m, v1, h1, h2, v2) => ` zk${/^(top|upper)$/i.test(v1 ?? v2) ? 't' : 'b'}${(h1 ?? h2).toLowerCase()[0]} `)
    .replace(/\b(up|down|top|bottom|upper|lower)-(left|right)\b/gi, '$1 $2')
    .replace(/[’‘]/g, "'");
  return PARSERS[parser](prepared);
}

const numberOf = (term) => (/^\d+$/.test(term.w) ? Number(term.w) : (NUMBER[term.w] ?? null));

/** The thing a term names, or null; `context` is what "it" refers to. */
function entityAt(terms, i, env, context) {
  const t = terms[i];
  const nouns = NOUNS[env];
  const singular = t.w.replace(/(es|s)$/, '');
  const type = nouns[t.w] ?? nouns[singular] ?? nouns[t.w.replace(/s$/, '')] ?? COMMON_NOUNS[t.w] ?? COMMON_NOUNS[t.w.replace(/s$/, '')];
  if (type) {
    const ref = { type, plural: t.tags.has('Plural') || (t.w !== singular && !nouns[t.w] && !COMMON_NOUNS[t.w]) };
    const before = terms[i - 1]?.w;
    const after = terms[i + 1]?.w;
    if (before && ORDINAL[before]) ref.index = ORDINAL[before];
    if (before && WHICH[before]) ref.which = WHICH[before];
    if (after && /^\d+$/.test(after) && !CELL_TOKEN.test(after)) ref.index = Number(after);
    // "the other box", "one of the holes": which one is meant is not said
    if (before === 'other' || before === 'another') return null;
    return ref;
  }
  if (ME.has(t.w) || t.w === "i'm" || t.w === 'im') return { type: 'player', plural: false };
  if (t.w === 'it' || t.w === 'its') return context.lastThing;
  return null;
}

/** Claims one clause makes about the board (position and relation claims), with the rule that read them. */
function readClause(terms, env, context, span, base) {
  const offBoard = (t, i) =>
    CONDITION.test(t.w) ||
    (OFF_BOARD.test(t.w) && !(t.w === 'can' && PERCEIVE.test(terms[i + 1]?.w ?? ''))) ||
    // "two steps above me": a unit, not a move
    (MOVE_VERB.test(t.w) && numberOf(terms[i - 1] ?? { w: '' }) === null) ||
    (t.tags.has('PastTense') && !STATIVE.test(t.w)) ||
    t.tags.has('Question');
  if (terms.some(offBoard)) return [];
  if (terms.some((t) => VAGUE.test(t.w) || t.w === 'neither' || t.w === 'nor' || t.w === 'or'))
    return readPositions(terms, env, context, span, base);
  const claims = readPositions(terms, env, context, span, base);
  const relation =
    readSameLine(terms, env, context, span) ??
    readOnTarget(terms, env, context, span) ??
    readStepsAway(terms, env, context, span) ??
    readRelation(terms, env, context, span, claims);
  if (relation) claims.push(relation);
  return claims;
}

const PERCEIVE = /^(see|notice|spot|find|tell)$/;
/** Words a relation phrase may hold besides directions, distances and the reference. */
const LINK =
  /^(to|of|from|the|and|on|side|is|are|am|'m|a|an|away|cell|cells|square|squares|tile|tiles|one|lies|lie|sits|sit|stands|stand|standing|sitting|lying|located|positioned|situated|placed|found|currently|now|still|also|at|its|their|exactly|only|see|notice|spot|can|i|there|there's|as|away|first|second|third|lower|upper|leftmost|rightmost)$/;
const negative = (t) => t.tags.has('Negative') || t.w === 'not' || t.w === 'no' || t.w === 'never' || t.w === 'nothing';

/** "the box is at (2, 3)", "at (1, 1) there is a hole", "no hole at (2, 2)". */
function readPositions(terms, env, context, span, base) {
  const claims = [];
  const byTerm = new Map();
  terms.forEach((t, i) => {
    const corner = env === 'frozenlake' ? CORNER_TOKEN.exec(t.w) : null;
    // the last row or column is Infinity, as in the rule table's claims
    const m = CELL_TOKEN.exec(t.w) ?? (corner && [t.w, corner[1] === 't' ? base : Infinity, corner[2] === 'l' ? base : Infinity]);
    if (!m) return;
    let negated = false;
    let entity = null;
    // "holes at (0, 0) and (2, 2)": the next cell of a list
    const listed = byTerm.get(terms[i - 1]?.w === 'and' ? i - 2 : i - 1);
    if (listed) ({ entity, negated } = listed);
    for (let j = i - 1; j >= 0 && !entity; j--) {
      const here = entityAt(terms, j, env, context);
      if (here) {
        // "the cell below me (1, 0)", "right of me is (2, 2)": the cell of another place
        if (j > 0 && (DIR_WORDS[terms[j - 1].w] || /^(of|from|to|than)$/.test(terms[j - 1].w))) return;
        entity = here;
        negated ||= j > 0 && terms[j - 1].w === 'no';
        break;
      }
      if (negative(terms[j])) negated = !negated;
      else if (!CELL_LINK.test(terms[j].w) && !/^\d+$/.test(terms[j].w)) break;
    }
    // "at (1, 1) there is a hole": the thing after the cell
    if (!entity && terms[i - 1]?.w === 'at') {
      for (let j = i + 1; j < terms.length; j++) {
        const here = entityAt(terms, j, env, context);
        if (here) {
          entity = here;
          break;
        }
        if (negative(terms[j])) negated = !negated;
        else if (!/^(there|is|are|a|an|the|lies|sits|stands)$/.test(terms[j].w)) break;
      }
    }
    if (!entity || (entity.type === 'player' && entity.plural)) return;
    byTerm.set(i, { entity, negated });
    claims.push({ kind: 'position', entity, cell: [Number(m[1]), Number(m[2])], negated, span, rule: 'nlp-position' });
  });
  return claims;
}

/** The first thing named in a clause and where: the subject ("I see a box …": the thing seen). */
function subjectOf(terms, env, context, before = terms.length) {
  for (let i = 0; i < before; i++) {
    const e = entityAt(terms, i, env, context);
    if (!e) continue;
    if (e.type === 'player' && terms[i].w !== 'it' && /^(see|notice|spot|find|have)$/.test(terms[i + 1]?.w ?? '')) continue;
    return { subject: e, at: i };
  }
  return null;
}

/** The one other thing named after `from` in a clause, with nothing but linking words before it. */
function objectAfter(terms, env, context, from) {
  for (let i = from; i < terms.length; i++) {
    const e = entityAt(terms, i, env, context);
    if (e) return terms.slice(i + 1).some((t) => entityAt([t], 0, env, context) || negative(t)) ? null : e;
    if (!LINK.test(terms[i].w)) return null;
  }
  return null;
}

/** An odd number of negations between the subject and `to`, or "no box …": negated; null when a negation comes earlier. */
function negationOf(terms, subjectAt, to) {
  if (terms.slice(0, subjectAt).some((t) => negative(t) && t.w !== 'no')) return null;
  let negated = terms.slice(subjectAt + 1, to).filter(negative).length % 2 === 1;
  if (subjectAt > 0 && terms[subjectAt - 1].w === 'no') negated = !negated;
  return negated;
}

/** "the target is in the same row as the box". */
function readSameLine(terms, env, context, span) {
  const at = terms.findIndex((t, i) => t.w === 'same' && /^(row|column|col)$/.test(terms[i + 1]?.w ?? ''));
  if (at < 0) return null;
  const found = subjectOf(terms, env, context, at);
  const ref = found && terms[at + 2]?.w === 'as' ? objectAfter(terms, env, context, at + 3) : null;
  const negated = found && negationOf(terms, found.at, at);
  if (!ref || negated === null) return null;
  const same = terms[at + 1].w === 'row' ? 'row' : 'column';
  return {
    kind: 'relation',
    subject: found.subject,
    ref,
    parts: [],
    adjacent: false,
    direct: false,
    same,
    negated,
    span,
    rule: 'nlp-same-line',
  };
}

/** "the player stands on a target", "the box is not on the target". */
function readOnTarget(terms, env, context, span) {
  if (env !== 'sokoban') return null;
  const at = terms.findIndex(
    (t, i) =>
      t.w === 'on' && entityAt(terms, i + 1 + (/^(a|the|its|top)$/.test(terms[i + 1]?.w ?? '') ? 1 : 0), env, context)?.type === 'target',
  );
  if (at < 0 || terms.some((t) => t.w === 'top' && terms[terms.indexOf(t) - 1]?.w !== 'on')) return null;
  const found = subjectOf(terms, env, context, at);
  if (!found || found.subject.plural || (found.subject.type !== 'box' && found.subject.type !== 'player')) return null;
  const negated = negationOf(terms, found.at, at);
  if (negated === null) return null;
  return { kind: 'on_target', entity: found.subject, negated, span, rule: 'nlp-on-target' };
}

/** "the goal is 4 steps from me": a distance with no direction. */
function readStepsAway(terms, env, context, span) {
  const at = terms.findIndex(
    (t, i) => numberOf(t) !== null && UNIT.test(terms[i + 1]?.w ?? '') && /^(from|away)$/.test(terms[i + 2]?.w ?? ''),
  );
  if (at < 0 || terms.some((t) => DIR_WORDS[t.w] || ADJACENT.has(t.w))) return null;
  const found = subjectOf(terms, env, context, at);
  const ref = found && objectAfter(terms, env, context, at + 2);
  const negated = found && negationOf(terms, found.at, at);
  if (!ref || negated === null || ref.type === found.subject.type) return null;
  return { kind: 'distance', subject: found.subject, ref, dist: numberOf(terms[at]), negated, span, rule: 'nlp-steps-away' };
}

/** "the box is two squares left of me", "there are no holes next to me", "the target is directly below the box". */
function readRelation(terms, env, context, span, positions) {
  const dirAt = terms.findIndex((t, i) => DIR_WORDS[t.w] || ADJACENT.has(t.w) || (t.w === 'next' && terms[i + 1]?.w === 'to'));
  if (dirAt < 0) return null;
  const found = subjectOf(terms, env, context, dirAt);
  if (!found) return null;
  const { subject, at: subjectAt } = found;
  // the relation phrase runs to the reference thing
  const parts = [];
  let adjacent = false;
  let direct = false;
  let pendingDist;
  let axisOnly;
  let mine = false;
  let ref = null;
  for (let i = subjectAt + 1; i < terms.length; i++) {
    const t = terms[i];
    // "to my left", "on my right": the player is the reference
    if (t.w === 'my' && i >= dirAt - 2 && !ref) {
      mine = true;
      continue;
    }
    const thing = i >= dirAt ? entityAt(terms, i, env, context) : null;
    if (thing) {
      // "right next to me on the left": directions may follow the reference; another thing may not
      if (ref || mine) return null;
      ref = thing;
      continue;
    }
    const n = numberOf(t);
    if (n !== null && UNIT.test(terms[i + 1]?.w ?? '')) {
      pendingDist = n;
      // "2 rows below" says nothing of the columns
      if (/^(columns?|cols?|rows?)$/.test(terms[i + 1].w)) axisOnly = /^row/.test(terms[i + 1].w) ? 'row' : 'column';
      i++;
    } else if (DIR_WORDS[t.w]) {
      // "right above", "right next to": an intensifier, not a direction
      const nextWord = terms[i + 1]?.w ?? '';
      if (t.w === 'right' && (DIR_WORDS[nextWord] || ADJACENT.has(nextWord) || nextWord === 'next') && !parts.length) {
        direct = true;
        continue;
      }
      const vertical = DIR_WORDS[t.w] === 'up' || DIR_WORDS[t.w] === 'down';
      if (axisOnly && (axisOnly === 'row') !== vertical) return null;
      parts.push({
        dir: DIR_WORDS[t.w],
        ...(pendingDist !== undefined ? { dist: pendingDist } : {}),
        ...(axisOnly ? { axisOnly: true } : {}),
      });
      pendingDist = undefined;
      axisOnly = undefined;
    } else if (ADJACENT.has(t.w) || (t.w === 'next' && terms[i + 1]?.w === 'to')) adjacent = true;
    else if (DIRECT.has(t.w)) direct = true;
    else if (negative(t) && !ref) continue;
    else if (!LINK.test(t.w) && !CELL_TOKEN.test(t.w) && t.w !== 'diagonally') return null;
  }
  if (pendingDist !== undefined) return null;
  // the reference is unsaid ("the box is to the left"): of what is not sure
  if (!ref && !mine) return null;
  ref ??= { type: 'player', plural: false };
  const dirs = new Set(parts.map((p) => p.dir));
  if ((dirs.has('up') && dirs.has('down')) || (dirs.has('left') && dirs.has('right')) || parts.length > 2) return null;
  if (!parts.length && !adjacent) return null;
  // "next to me on the left": one cell that way
  if (adjacent && parts.length > 1) return null;
  if (terms.some((t) => t.w === 'diagonally') && parts.length !== 2) return null;
  const negated = negationOf(terms, subjectAt, dirAt);
  if (negated === null) return null;
  if (subject.type === ref.type && !subject.plural && !ref.plural && (subject.index ?? 0) === (ref.index ?? 0)) return null;
  const located = positions.some((p) => p.entity.type === subject.type);
  if (subject.type !== 'player') context.lastThing = subject;
  else if (ref.type !== 'player') context.lastThing = ref;
  const rule = adjacent ? 'nlp-adjacent' : parts.some((p) => p.dist !== undefined) ? 'nlp-distance' : 'nlp-direction';
  return { kind: 'relation', subject, ref, parts, adjacent, direct, negated, located, span, rule };
}

/**
 * Position, relation and on-target claims of a think text, each with its sentence (`span`, `text`),
 * in the shape of the rule table's claims (claims.ts) so verifyClaim judges them. `parser`: which
 * library tags the words; `form`: read only sentences of that form (sentence-form.ts); `base`: the
 * text's coordinate base (a corner is the first or last row and column).
 */
export function readClaims(think, env, { parser = 'compromise', form, base = 0 } = {}) {
  const context = { lastThing: null };
  const claims = [];
  for (const sentence of splitSentences(think)) {
    if (garbledReason(sentence.text) || isPlanSentence(sentence.text) || sentence.text.endsWith('?')) continue;
    // only sentences of one form (the rule table reads the others): they are not parsed at all
    if (form && sentenceForm(sentence.text) !== form) continue;
    if (META.test(sentence.text)) continue;
    const words = sentence.text
      .toLowerCase()
      .split(/\s+/)
      .map((w) => w.replace(/[^a-z']/g, ''));
    if (words.some((w) => CONDITION.test(w))) continue;
    for (const terms of clausesOf(sentence.text, parser)) {
      for (const c of readClause(terms, env, context, sentence.span, base)) claims.push({ ...c, text: sentence.text });
      // the last thing named in a clause is what a later "it" means
      for (let i = terms.length - 1; i >= 0; i--) {
        const e = entityAt(terms, i, env, context);
        if (e && e.type !== 'player') {
          context.lastThing = e;
          break;
        }
      }
    }
  }
  return claims;
}
