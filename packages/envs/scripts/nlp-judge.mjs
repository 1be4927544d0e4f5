#!/usr/bin/env node
// The rule table (the shipped checker) against a reader built on an NLP library (nlp-reader.mjs),
// on labelled sets: `hallucinated` precision and recall of (a) the rule table as shipped, (b) the
// rule table on template sentences with the NLP reader on free ones, (c) the NLP reader alone; the
// precision of each reader's contradictions per form of sentence and per NLP rule; and throughput.
//
//   node scripts/nlp-judge.mjs                 development sets (what the reader was written on)
//   node scripts/nlp-judge.mjs --errors        … and every NLP contradiction, right or wrong
//   node scripts/nlp-judge.mjs --held-out      the held-out rounds: score them once
//   --parser wink                              the reader on wink-nlp instead of compromise
import { conventionOf } from '../dist/diagnostics/normalize.js';
import { wilsonLower } from '../dist/diagnostics/rule-gate.js';
import { ruleTrust, sentenceForm, verifyClaim, World, PRECISION_GOAL } from '../dist/index.js';
import { confusion, contradictionRight, DEV, diagnoseExample, falseSpans, load, precisionByKey, ratio } from './diagnostics-scoring.mjs';
import { readClaims } from './nlp-reader.mjs';

const args = process.argv.slice(2);
const HELD_OUT = [
  'reasoning-heldout-7',
  'reasoning-heldout-8',
  'reasoning-heldout-9',
  'reasoning-real-1',
  'reasoning-real-2',
  'reasoning-real-3',
];
const heldOut = args.includes('--held-out');
const parser = args.includes('--parser') ? args[args.indexOf('--parser') + 1] : 'compromise';
const sets = (heldOut ? HELD_OUT : DEV).map((name) => ({ name, examples: load(name) }));

/** The NLP reader's contradictions in one text (in sentences of `form` only, when given), judged by the checker's own verify step. */
function nlpContradictions(e, form) {
  if (e.formatOk === false || (e.env !== 'sokoban' && e.env !== 'frozenlake')) return [];
  const convention = conventionOf(e.think);
  const world = new World(e.state);
  const out = [];
  for (const c of readClaims(e.think, e.env, { parser, form, base: convention.base ?? 0 })) {
    // coordinates in a convention the text does not make clear are not judged; (x, y) is swapped
    if (c.cell && convention.unclear) continue;
    const claim = c.cell && convention.xy ? { ...c, cell: [c.cell[1], c.cell[0]] } : c;
    let checked;
    try {
      checked = verifyClaim(world, claim, { coordinateBase: convention.base ?? 0, decidedMoves: [] });
    } catch {
      continue;
    }
    if (checked.verdict === 'contradicted') out.push({ ...claim, form: sentenceForm(c.text), evidence: checked.evidence });
  }
  return out;
}

/** The rule table's contradictions in one text: every rule allowed (`all`) and as shipped (`flags`). */
function ruleContradictions(e) {
  const mark = (d) => d.claims.filter((c) => c.verdict === 'contradicted').map((c) => ({ ...c, form: sentenceForm(c.text) }));
  return { all: mark(diagnoseExample(e, { ruleGate: false })), flags: mark(diagnoseExample(e)) };
}

const judged = (examples) => examples.map((e) => ({ e, spans: falseSpans(e), rules: ruleContradictions(e), nlp: nlpContradictions(e) }));

/** Per key: contradictions of the reading `pick` chooses, how many right, and the contradicted texts caught. */
const precisionBy = (rows, pick, keyOf) =>
  precisionByKey(
    rows.flatMap((r) => pick(r).map((c) => ({ e: r.e, spans: r.spans, span: c.span, key: keyOf(c) }))),
    rows.filter((r) => r.e.contradicted).length,
  );

/** The NLP reader's contradictions that pass a gate measured on `table` (per NLP rule and form, as the rule table's). */
const gatedBy = (table) => (c) => ruleTrust(c.rule, c.form, table).trusted;
const countsOf = (rows) =>
  Object.fromEntries(
    precisionBy(
      rows,
      (r) => r.nlp,
      (c) => `${c.rule}@${c.form}`,
    ).map((t) => [t.key, { flags: t.flags, right: t.right }]),
  );

/** hallucinated P / R of each way of reading, per set. */
function variants(rows, nlpGate) {
  const hallucinated = (flagged) => confusion(rows.map((r) => [flagged(r), !!r.e.contradicted]));
  const free = (c) => c.form === 'free';
  const template = (c) => c.form === 'template';
  const out = {
    'a  rule table as shipped': hallucinated((r) => r.rules.flags.length > 0),
    'a* rule table, every rule allowed': hallucinated((r) => r.rules.all.length > 0),
    'b  rule table template + NLP free': hallucinated((r) => r.rules.flags.some(template) || r.nlp.some(free)),
    'c  NLP alone': hallucinated((r) => r.nlp.length > 0),
  };
  if (nlpGate)
    out['b+ … NLP free gated (other data)'] = hallucinated(
      (r) => r.rules.flags.some(template) || r.nlp.some((c) => free(c) && nlpGate(r)(c)),
    );
  return out;
}

const fmt = (c) =>
  `n=${String(c.n).padStart(4)} tp=${String(c.tp).padStart(3)} fp=${String(c.fp).padStart(3)} fn=${String(c.fn).padStart(3)}  P=${c.precision.toFixed(3)} R=${c.recall.toFixed(3)}`;
const printVariants = (title, v) => {
  console.log(`\n${title}`);
  for (const [name, c] of Object.entries(v)) console.log(`  ${name.padEnd(36)} ${fmt(c)}`);
};
const printPrecision = (title, table) => {
  console.log(`\n${title} (right = in a text labelled contradicted, in the sentence of a claim labelled false where claims are labelled)`);
  for (const t of table)
    console.log(
      `  ${t.key.padEnd(32)} contradictions ${String(t.flags).padStart(4)} right ${String(t.right).padStart(4)}  P=${t.precision.toFixed(3)}  Wilson90-low=${wilsonLower(t.right, t.flags).toFixed(3)}  texts caught R=${t.recall.toFixed(3)}`,
    );
};

const judgedSets = sets.map((s) => ({ ...s, rows: judged(s.examples) }));
const all = judgedSets.flatMap((s) => s.rows);
console.log(
  `${heldOut ? 'HELD-OUT' : 'DEVELOPMENT'}, NLP reader on ${parser}: ${all.length} think texts, ${all.filter((r) => r.e.contradicted).length} labelled contradicted`,
);

/**
 * The NLP reader gated as the rule table is on held-out sets: each set in two folds (odd and even
 * texts), each gated by counts from the other sets and the other fold, so no text is gated by itself.
 */
function crossGate(set) {
  const others = judgedSets.filter((s) => s.name !== set.name).flatMap((s) => s.rows);
  const folds = [0, 1].map((k) => set.rows.filter((_, i) => i % 2 === k));
  const gates = folds.map((_, k) => gatedBy(countsOf([...others, ...folds[1 - k]])));
  const foldOf = new Map(set.rows.map((r, i) => [r, i % 2]));
  return (r) => gates[foldOf.get(r)];
}
const gateOf = new Map(judgedSets.map((s) => [s.name, heldOut ? crossGate(s) : null]));
const pooledGate = (r) => gateOf.get(judgedSets.find((s) => s.rows.includes(r)).name)?.(r);

for (const s of judgedSets) {
  printVariants(`${s.name} (${s.rows.length} texts)`, variants(s.rows, gateOf.get(s.name)));
  const kinds = [...new Set(s.rows.flatMap((r) => r.e.kinds ?? []))].filter((k) => k === 'free' || k === 'template');
  for (const k of kinds)
    printVariants(
      `  ${s.name}, kind ${k}`,
      variants(
        s.rows.filter((r) => r.e.kinds.includes(k)),
        gateOf.get(s.name),
      ),
    );
}
printVariants(`pooled (${all.length} texts)`, variants(all, heldOut ? pooledGate : null));
const byForm = (c) => c.form;
const byRule = (c) => `${c.rule}@${c.form}`;
for (const [title, pick, keyOf] of [
  ['rule table, every rule allowed: contradictions per form', (r) => r.rules.all, byForm],
  ['NLP reader: contradictions per form', (r) => r.nlp, byForm],
  ['NLP reader: contradictions per rule and form', (r) => r.nlp, byRule],
  ['rule table, every rule allowed: free-form contradictions per rule', (r) => r.rules.all.filter((c) => c.form === 'free'), byRule],
])
  printPrecision(title, precisionBy(all, pick, keyOf));
/**
 * Free sentences with a contradiction, by which reader raised it: where both did, and where only one
 * did. Each reader on the other's sentences is the comparison at equal coverage.
 */
function agreement(rows) {
  const overlaps = (x, y) => x.span[0] < y.span[1] && y.span[0] < x.span[1];
  const out = { both: [0, 0], 'rule table only': [0, 0], 'NLP only': [0, 0] };
  const add = (key, r, c) => {
    out[key][0]++;
    if (contradictionRight(r.e, c.span, r.spans)) out[key][1]++;
  };
  for (const r of rows) {
    const once = (cs) => cs.filter((c, i) => c.form === 'free' && cs.findIndex((d) => d.span[0] === c.span[0]) === i);
    const rule = once(r.rules.all);
    const nlpFree = once(r.nlp);
    for (const c of rule) add(nlpFree.some((d) => overlaps(c, d)) ? 'both' : 'rule table only', r, c);
    for (const c of nlpFree) if (!rule.some((d) => overlaps(c, d))) add('NLP only', r, c);
  }
  console.log('\nfree sentences with a contradiction (every rule allowed), by reader:');
  for (const [key, [n, right]] of Object.entries(out))
    console.log(
      `  ${key.padEnd(18)} sentences ${String(n).padStart(4)} right ${String(right).padStart(4)}  P=${ratio(right, n).toFixed(3)}`,
    );
}
agreement(all);
console.log(`\n(gate: a rule flags where the 90% Wilson lower bound of its held-out precision is ≥ ${PRECISION_GOAL})`);

if (args.includes('--errors'))
  for (const r of all)
    for (const c of r.nlp)
      console.log(
        `\n${contradictionRight(r.e, c.span, r.spans) ? 'RIGHT' : 'WRONG'} ${r.e.id} ${c.rule}@${c.form} label=${r.e.contradicted}\n  sentence: ${c.text}\n  read: ${JSON.stringify({ subject: c.subject ?? c.entity, ref: c.ref, parts: c.parts, cell: c.cell, negated: c.negated, adjacent: c.adjacent, direct: c.direct })}\n  board: ${c.evidence}`,
      );

// turns per CPU-second on one core, over the development texts (the machine's other work does not count)
const texts = DEV.flatMap(load);
const cpu = () => process.cpuUsage().user / 1000;
function throughput(work) {
  const c0 = cpu();
  let n = 0;
  while (cpu() - c0 < 1000) {
    for (const e of texts) work(e);
    n += texts.length;
  }
  return Math.round((n * 1000) / (cpu() - c0));
}
console.log(`\nthroughput, turns per CPU-second on one core (${texts.length} development texts, repeated):`);
console.log(`  a  rule table as shipped            ${throughput((e) => diagnoseExample(e))}`);
console.log(`  b  rule table + NLP on free text    ${throughput((e) => (diagnoseExample(e), nlpContradictions(e, 'free')))}`);
console.log(`  c  NLP alone                        ${throughput(nlpContradictions)}`);
