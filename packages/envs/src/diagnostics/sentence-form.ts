// How a sentence is written. A reading rule is right far more often on fixed sentences (those the
// pretraining teacher writes, which the bases imitate, and plain statements of where a thing is) than
// on free text, so its precision is measured, and gated, per form. A garbled sentence is read by no rule.

export type SentenceForm = 'template' | 'free';

const CELL = String.raw`\(\d+, ?\d+\)`;
const OFFSET = String.raw`(?:here|\d+ (?:up|down|left|right)(?: and \d+ (?:up|down|left|right))?)`;
const MOVES = String.raw`(?:up|down|left|right|none)(?:, (?:up|down|left|right))*`;

/** A plain statement of where one thing is: "the box is at (2, 3)", "I'm at (1, 1)". */
const PLAIN = `(?:the )?(?:player|box|target|goal|hole|i|i'm)(?: \\d+)?(?: is| am)? at ${CELL}`;

/** The teacher's sentences (packages/trainer/src/pretrain/teacher.ts), and plain positions joined by "and" or commas. */
const TEMPLATES = [
  `${PLAIN}(?:(?:,| and|, and) ${PLAIN})*`,
  `player at ${CELL}`,
  `box(?: \\d+)? at ${CELL}(?:, on target)?`,
  `target at ${CELL}`,
  `box must go ${OFFSET}`,
  `goal at ${CELL}, ${OFFSET}`,
  `hole ${OFFSET} at ${CELL}(?:, ${OFFSET} at ${CELL})*`,
  'no hole next to player',
  `plan: ${MOVES}`,
].map((t) => new RegExp(`^${t}\\.?$`, 'i'));

export function sentenceForm(sentence: string): SentenceForm {
  const s = sentence.trim();
  return TEMPLATES.some((t) => t.test(s)) ? 'template' : 'free';
}

const MOVE = String.raw`(?:up|down|left|right)`;

/**
 * Why a sentence cannot be read with confidence (broken brackets, words run together, a coordinate
 * with a word inside), or null. Its claims are not checkable: a fragment is never contradicted.
 */
export function garbledReason(sentence: string): string | null {
  let depth = 0;
  for (const ch of sentence) {
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    if (depth < 0) return 'a closing bracket with no opening one';
  }
  if (depth > 0) return 'a bracket that is never closed';
  if (new RegExp(String.raw`\b${MOVE}(?:\d|\()`, 'i').test(sentence)) return 'a move run into a number';
  if (/\(\s*\d+\s*,\s*[a-z]/i.test(sentence)) return 'a coordinate with a word inside';
  return null;
}

/** "Plan: …" lists moves: the direction words in it are moves, never where something lies. */
export const isPlanSentence = (sentence: string): boolean => /^\s*plan\s*:/i.test(sentence);
