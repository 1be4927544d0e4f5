// What bench-diagnostics.mjs and nlp-judge.mjs share: loading the labelled sets, running the
// checker on one labelled text, and counting a confusion matrix and where a text's false claims lie.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagnoseTurn } from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const fixture = (name) => path.join(here, `../test/fixtures/${name}.json`);
export const load = (name) => JSON.parse(readFileSync(fixture(name), 'utf8'));

/** Development: the generated set, the hand-written rounds 1–3 and the examples written for each kind of text. */
export const DEV = [
  'reasoning-labelled',
  'reasoning-handwritten',
  'reasoning-handwritten-2',
  'reasoning-handwritten-3',
  'reasoning-dev-kinds',
];

export const answerMoves = (a) =>
  String(a ?? '')
    .split('||')
    .map((m) => m.trim())
    .filter(Boolean);

export const diagnoseExample = (e, options) =>
  diagnoseTurn(
    {
      env: e.env,
      think: e.think,
      formatOk: e.formatOk ?? true,
      answerActions: answerMoves(e.answer),
      executed: [],
      effectiveCount: 0,
      before: e.state,
      after: null,
    },
    options,
  );

export const ratio = (num, den) => (den ? num / den : 1);

/** [predicted, label] pairs → counts, precision and recall. */
export function confusion(pairs) {
  const c = { n: pairs.length, tp: 0, fp: 0, fn: 0, tn: 0 };
  for (const [predicted, label] of pairs) c[predicted ? (label ? 'tp' : 'fp') : label ? 'fn' : 'tn']++;
  return { ...c, precision: ratio(c.tp, c.tp + c.fp), recall: ratio(c.tp, c.tp + c.fn) };
}

/** Where each claim labelled false lies in the think text (null when the round does not label claims). */
export function falseSpans(e) {
  if (!Array.isArray(e.claims)) return null;
  const lower = e.think.toLowerCase();
  return e.claims
    .filter((c) => c.verdict === 'false' && typeof c.text === 'string')
    .map((c) => {
      const at = lower.indexOf(c.text.toLowerCase());
      return at < 0 ? null : [at, at + c.text.length];
    });
}

/**
 * Whether a contradiction raised on `span` of a text is right: the text is labelled contradicted and,
 * where the round labels its claims, a claim labelled false lies in that sentence (a false claim whose
 * text was not found verbatim: the sentence cannot be told, the text's label decides).
 */
export const contradictionRight = (e, span, spans = falseSpans(e)) =>
  !!e.contradicted && (!spans || spans.some((sp) => !sp || (sp[0] < span[1] && sp[1] > span[0])));

/**
 * Contradictions counted per key ({ e, span, spans, key } each): how many, how many right, and the
 * share of the `positives` contradicted texts they caught; most contradictions first.
 */
export function precisionByKey(found, positives) {
  const table = new Map();
  for (const { e, span, spans, key } of found) {
    const t = table.get(key) ?? { flags: 0, right: 0, caught: new Set() };
    table.set(key, t);
    t.flags++;
    if (contradictionRight(e, span, spans)) {
      t.right++;
      t.caught.add(e.id);
    }
  }
  return [...table.entries()]
    .map(([key, t]) => ({
      key,
      flags: t.flags,
      right: t.right,
      precision: ratio(t.right, t.flags),
      caught: t.caught.size,
      recall: ratio(t.caught.size, positives),
    }))
    .sort((a, b) => b.flags - a.flags || a.key.localeCompare(b.key));
}
