#!/usr/bin/env node
// Precision and recall of the "contradicted" verdict on the labelled think texts, per environment
// and per kind of fact, plus checker throughput. `npm run bench:diagnostics` (after a build).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagnoseTurn } from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const load = (name) => JSON.parse(readFileSync(path.join(here, `../test/fixtures/${name}.json`), 'utf8'));
const generated = load('reasoning-labelled');
// Hand-written rounds 2 and 3 were each scored once before the checker saw them (docs/results/reasoning-diagnostics.md).
const rounds = ['reasoning-handwritten', 'reasoning-handwritten-2', 'reasoning-handwritten-3'].map(load);
const set = [...generated, ...rounds.flat()];
const verbose = process.argv.includes('--errors');

const diagnoseExample = (e) =>
  diagnoseTurn({
    env: e.env,
    think: e.think,
    formatOk: true,
    answerActions: [],
    executed: [],
    effectiveCount: 0,
    before: e.state,
    after: null,
  });

export function score(examples) {
  const c = { tp: 0, fp: 0, fn: 0, tn: 0 };
  const errors = [];
  for (const e of examples) {
    const d = diagnoseExample(e);
    const predicted = d.contradicted > 0;
    c[predicted ? (e.contradicted ? 'tp' : 'fp') : e.contradicted ? 'fn' : 'tn']++;
    if (predicted !== e.contradicted) errors.push({ e, d });
  }
  const precision = c.tp / Math.max(1, c.tp + c.fp);
  const recall = c.tp / Math.max(1, c.tp + c.fn);
  return { ...c, n: examples.length, precision, recall, errors };
}

const row = (name, r) =>
  `${name.padEnd(24)} n=${String(r.n).padStart(4)}  tp=${String(r.tp).padStart(3)} fp=${String(r.fp).padStart(3)} fn=${String(r.fn).padStart(3)} tn=${String(r.tn).padStart(3)}  precision=${r.precision.toFixed(3)}  recall=${r.recall.toFixed(3)}`;

const all = score(set);
console.log(`labelled set: ${set.length} think texts (${set.filter((e) => e.contradicted).length} with a false claim)`);
console.log(row('all', all));
console.log(row('generated', score(generated)));
rounds.forEach((r, i) => console.log(row(`handwritten round ${i + 1}`, score(r))));
for (const env of ['sokoban', 'frozenlake']) console.log(row(env, score(set.filter((e) => e.env === env))));
for (const style of [...new Set(set.flatMap((e) => e.styles))].sort())
  console.log(row(`  has ${style}`, score(set.filter((e) => e.styles.includes(style)))));
const t0 = performance.now();
let n = 0;
while (performance.now() - t0 < 1000) {
  for (const e of set) diagnoseExample(e);
  n += set.length;
}
console.log(`throughput: ${Math.round((n * 1000) / (performance.now() - t0))} turns/s on one core`);
if (verbose)
  for (const { e, d } of all.errors)
    console.log(
      `\n${e.id} label=${e.contradicted ? 'contradicted' : 'fine'}: ${e.think}\n  ${JSON.stringify(d.claims.map((c) => [c.pattern, c.verdict, c.evidence ?? '']))}`,
    );
