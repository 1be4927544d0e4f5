#!/usr/bin/env node
// Precision and recall of the reasoning checker: the `hallucinated` verdict (a text with a
// contradicted claim) and think–answer mismatch, on the development set and on each held-out
// round, per environment and per kind of text; plus throughput. `npm run bench:diagnostics`.
//
// Held-out rounds are scored once before the checker is changed for them; that first score is kept
// in test/fixtures/first-scores.json. `--record <fixture>` scores a new round and writes its first
// score (refused when one is recorded). Every run compares each recorded round with its first score
// and exits 1 when a score fell below it.
//
// Per reading rule (packages/envs/src/diagnostics/rules.ts): how many contradictions it raised with
// every rule allowed to contradict, and how many were right: in a text labelled contradicted and, where
// the round labels its claims, in a sentence holding a claim labelled false. `--write-rule-precision`
// writes those counts on the development set to src/diagnostics/rule-precision.ts, which the checker
// reads to withhold the flag of a rule below the precision goal. `--set <file>` scores any labelled set.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRECISION_GOAL, precisionKey, sentenceForm } from '../dist/index.js';
import { confusion, DEV, diagnoseExample, falseSpans, fixture, load, precisionByKey, ratio } from './diagnostics-scoring.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIRST = fixture('first-scores');
const first = existsSync(FIRST) ? JSON.parse(readFileSync(FIRST, 'utf8')) : { rounds: [] };
const args = process.argv.slice(2);
const verbose = args.includes('--errors');
const recordName = args.includes('--record') ? args[args.indexOf('--record') + 1] : null;
const only = args.includes('--round') ? args[args.indexOf('--round') + 1] : null;
const setFile = args.includes('--set') ? args[args.indexOf('--set') + 1] : null;
const writePrecision = args.includes('--write-rule-precision');

// Development also holds every held-out round once the checker was tuned on it (tunedOn in first-scores.json).

/** Both flags of every example; mismatch only where the example has an answer and a label for it. */
export function score(examples, options) {
  const rows = examples.map((e) => ({ e, d: diagnoseExample(e, options) }));
  const hallucinated = confusion(rows.map(({ e, d }) => [d.contradicted > 0, !!e.contradicted]));
  const withAnswer = rows.filter(({ e }) => e.answer !== undefined && typeof e.mismatch === 'boolean');
  const mismatch = confusion(withAnswer.map(({ e, d }) => [d.thinkAnswer === 'mismatch', e.mismatch]));
  const errors = rows.filter(
    ({ e, d }) =>
      d.contradicted > 0 !== !!e.contradicted || (typeof e.mismatch === 'boolean' && (d.thinkAnswer === 'mismatch') !== e.mismatch),
  );
  return { hallucinated, mismatch, errors };
}

/** Per rule: contradictions raised (every rule allowed), how many right, and the contradicted texts it caught. */
export function ruleScores(examples) {
  // a fragment's claims are never contradicted, gate or not: diagnoseTurn reports them not checkable
  const found = examples.flatMap((e) => {
    const spans = falseSpans(e);
    return (
      diagnoseExample(e, { ruleGate: false })
        .claims.filter((c) => c.verdict === 'contradicted')
        // measured per rule and per form of sentence, as the gate reads it
        .map((c) => ({ e, spans, span: c.span, key: precisionKey(c.rule, sentenceForm(c.text)) }))
    );
  });
  return precisionByKey(found, examples.filter((e) => e.contradicted).length).map(({ key, ...r }) => ({ rule: key, ...r }));
}

function printRules(title, examples, gated = false) {
  console.log(
    `\nper reading rule, ${title} (every rule allowed to contradict; right = in a text labelled contradicted, in the sentence of a claim labelled false where claims are labelled)`,
  );
  for (const r of ruleScores(examples))
    console.log(
      `  ${String(r.rule).padEnd(28)} contradictions ${String(r.flags).padStart(4)} right ${String(r.right).padStart(4)}  P=${r.precision.toFixed(3)}  caught ${String(r.caught).padStart(3)} texts R=${r.recall.toFixed(3)}${gated && r.precision < PRECISION_GOAL ? '  (below the goal: not checked)' : ''}`,
    );
}

const fmt = (r) =>
  r.n
    ? `n=${String(r.n).padStart(4)} tp=${String(r.tp).padStart(3)} fp=${String(r.fp).padStart(3)} fn=${String(r.fn).padStart(3)} tn=${String(r.tn).padStart(3)}  P=${r.precision.toFixed(3)} R=${r.recall.toFixed(3)}`
    : 'n=   0';
const row = (name, s) => console.log(`${name.padEnd(28)} hallucinated ${fmt(s.hallucinated)}   mismatch ${fmt(s.mismatch)}`);
const kindsOf = (e) => e.kinds ?? e.styles ?? [];

function breakdown(examples) {
  for (const env of ['sokoban', 'frozenlake']) row(`  ${env}`, score(examples.filter((e) => e.env === env)));
  for (const kind of [...new Set(examples.flatMap(kindsOf))].sort())
    row(`  kind ${kind}`, score(examples.filter((e) => kindsOf(e).includes(kind))));
}

function printErrors(examples) {
  for (const { e, d } of score(examples).errors)
    console.log(
      `\n${e.id} [${kindsOf(e).join(',')}] label=${e.contradicted ? 'contradicted' : 'fine'}${typeof e.mismatch === 'boolean' ? ` mismatch=${e.mismatch} answer=${e.answer} decided=${JSON.stringify(e.decided)}` : ''}\n  think: ${e.think}\n  checker: decided=${JSON.stringify(d.decided)} ${d.thinkAnswer} ${JSON.stringify(d.claims.map((c) => [c.pattern, c.verdict, c.evidence ?? c.reason ?? '']))}`,
    );
}

const summary = (s) => ({
  hallucinated: pick(s.hallucinated),
  mismatch: pick(s.mismatch),
});
const pick = ({ n, tp, fp, fn, tn, precision, recall }) => ({
  n,
  tp,
  fp,
  fn,
  tn,
  precision: Number(precision.toFixed(3)),
  recall: Number(recall.toFixed(3)),
});

if (recordName) {
  if (first.rounds.some((r) => r.fixture === recordName)) {
    console.error(`${recordName} already has a first score in first-scores.json; it is scored once`);
    process.exit(2);
  }
  const examples = load(recordName);
  const s = score(examples);
  first.rounds.push({ fixture: recordName, scoredAt: new Date().toISOString(), tunedOn: false, first: summary(s) });
  writeFileSync(FIRST, `${JSON.stringify(first, null, 2)}\n`);
  console.log(`first score of ${recordName} recorded (${examples.length} texts):`);
  row(recordName, s);
  breakdown(examples);
  if (verbose) printErrors(examples);
  process.exit(0);
}

if (setFile) {
  // any labelled set in the held-out format (a JSON array, or JSONL as a team's verdicts export)
  const raw = readFileSync(setFile, 'utf8');
  const examples = raw.trimStart().startsWith('[')
    ? JSON.parse(raw)
    : raw
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l));
  console.log(`${setFile}: ${examples.length} think texts, ${examples.filter((e) => e.contradicted).length} labelled contradicted`);
  row(path.basename(setFile), score(examples));
  breakdown(examples);
  printRules(path.basename(setFile), examples);
  if (verbose) printErrors(examples);
  process.exit(0);
}

if (only) {
  const examples = load(only);
  row(only, score(examples));
  breakdown(examples);
  if (verbose) printErrors(examples);
  process.exit(0);
}

const tuned = first.rounds.filter((r) => r.tunedOn).map((r) => r.fixture);
const dev = [...DEV, ...tuned].map((name) => ({ name, examples: load(name) }));
const devAll = dev.flatMap((d) => d.examples);
console.log(`DEVELOPMENT (tuned on): ${devAll.length} think texts, ${devAll.filter((e) => e.contradicted).length} with a false claim`);
row('all development', score(devAll));
for (const d of dev) row(`  ${d.name}`, score(d.examples));
breakdown(devAll);
printRules('development', devAll, true);

/** The gate's data: every held-out round (never tuned on), per rule and form of sentence. */
const precisionTable = (examples) => Object.fromEntries(ruleScores(examples).map((r) => [r.rule, { flags: r.flags, right: r.right }]));
const heldOutRounds = first.rounds.filter((r) => !r.tunedOn).map((r) => ({ name: r.fixture, examples: load(r.fixture) }));

if (writePrecision) {
  const names = heldOutRounds.map((r) => r.name);
  const all = heldOutRounds.flatMap((r) => r.examples);
  const data = `measured on ${all.length} held-out texts`;
  const file = path.join(here, '../src/diagnostics/rule-precision.ts');
  writeFileSync(
    file,
    `// Written by \`npm run bench:diagnostics -- --write-rule-precision\`; do not edit by hand.\n` +
      `/** Contradictions each reading rule raised, per form of sentence, on the held-out data below, and how many of them were right. */\n` +
      `export const RULE_PRECISION: Record<string, { flags: number; right: number }> = ${JSON.stringify(precisionTable(all), null, 2)};\n` +
      `export const RULE_PRECISION_DATA = ${JSON.stringify(data)};\n` +
      `/** The labelled sets (packages/envs/test/fixtures) the counts come from: rounds the rules were never tuned on. */\n` +
      `export const RULE_PRECISION_SETS = ${JSON.stringify(names)};\n`,
  );
  console.log(
    `\nwrote ${path.relative(process.cwd(), file)} (${data}: ${names.join(', ')}); rebuild @starpo/envs for the checker to use it`,
  );
}

/**
 * A round scored under a gate it did not set: two folds (odd and even texts), each scored with the
 * gate measured on the other rounds and the other fold.
 */
function crossGated(round) {
  const others = heldOutRounds.filter((r) => r.name !== round.name).flatMap((r) => r.examples);
  const folds = [0, 1].map((k) => round.examples.filter((_, i) => i % 2 === k));
  const scored = folds.map((fold, k) => score(fold, { rulePrecision: precisionTable([...others, ...folds[1 - k]]) }));
  const add = (flag) => {
    const c = { n: 0, tp: 0, fp: 0, fn: 0, tn: 0 };
    for (const s of scored) for (const key of Object.keys(c)) c[key] += s[flag][key];
    return { ...c, precision: ratio(c.tp, c.tp + c.fp), recall: ratio(c.tp, c.tp + c.fn) };
  };
  return { hallucinated: add('hallucinated'), mismatch: add('mismatch') };
}

console.log(`\nHELD-OUT ROUNDS: first score (recorded before any change for the round) and now`);
let fell = false;
for (const r of first.rounds) {
  const now = summary(score(load(r.fixture)));
  const line = (flag) =>
    `P ${r.first[flag].precision.toFixed(3)} R ${r.first[flag].recall.toFixed(3)} -> P ${now[flag].precision.toFixed(3)} R ${now[flag].recall.toFixed(3)}`;
  console.log(`${r.fixture.padEnd(24)} ${r.tunedOn ? '(tuned on since: development now)' : '(held out)'}`);
  console.log(`  hallucinated  first ${line('hallucinated')}`);
  console.log(`  mismatch      first ${line('mismatch')}`);
  const round = heldOutRounds.find((h) => h.name === r.fixture);
  if (round) row('  gated by the other data', crossGated(round));
  // precision first: a precision below the first score fails the bench; recall given up for it is shown
  for (const flag of ['hallucinated', 'mismatch'])
    for (const m of ['precision', 'recall'])
      if (now[flag][m] < r.first[flag][m]) {
        if (m === 'precision') fell = true;
        console.log(
          `  ${m === 'precision' ? '!!' : '  '} ${flag} ${m} below its first score: ${now[flag][m].toFixed(3)} < ${r.first[flag][m].toFixed(3)}`,
        );
      }
}
if (!first.rounds.length) console.log('  (none recorded yet)');
const heldOut = first.rounds.filter((r) => !r.tunedOn).flatMap((r) => load(r.fixture));
if (heldOut.length) {
  console.log(`\nHELD-OUT (never tuned on), pooled now: ${heldOut.length} think texts`);
  row('all held-out', score(heldOut));
  breakdown(heldOut);
  printRules('held-out (never tuned on)', heldOut);
}

// CPU time of this process, so that other work on the machine does not count against the checker
const cpu = () => process.cpuUsage().user / 1000;
const t0 = performance.now();
const c0 = cpu();
let n = 0;
while (cpu() - c0 < 1000) {
  for (const e of devAll) diagnoseExample(e);
  n += devAll.length;
}
const wall = performance.now() - t0;
console.log(
  `\nthroughput: ${Math.round((n * 1000) / (cpu() - c0))} turns per CPU-second on one core (${Math.round((n * 1000) / wall)} per wall-clock second; the machine was ${Math.round(((cpu() - c0) / wall) * 100)}% ours)`,
);
if (verbose) printErrors(devAll);
if (fell) {
  console.error('a held-out round has a lower precision than its recorded first score');
  process.exit(1);
}
