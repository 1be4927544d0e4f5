#!/usr/bin/env node
// Compare two runs' metrics.jsonl value by value (e.g. the same seeds before and after a refactor).
// Timing keys (timing_s/*, perf/tokens_per_s, time) are skipped; every other number must be equal.
// usage: node scripts/compare-metrics.mjs before/metrics.jsonl after/metrics.jsonl [--table key1,key2,...]
// Exit code 1 when any value differs; --table prints a Markdown side-by-side table of the chosen keys.
import { readFileSync } from 'node:fs';

const [beforeFile, afterFile, ...rest] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
  console.error('usage: node scripts/compare-metrics.mjs before/metrics.jsonl after/metrics.jsonl [--table key1,key2,...]');
  process.exit(2);
}
const tableKeys = rest[0] === '--table' && rest[1] ? rest[1].split(',') : [];
const skip = (k) => k === 'step' || k === 'time' || k === 'perf/tokens_per_s' || k.startsWith('timing_s/');

/** step → metric → value (a step's records merged in file order). */
function read(file) {
  const steps = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    const m = steps.get(r.step) ?? {};
    for (const [k, v] of Object.entries(r)) if (typeof v === 'number' && !skip(k)) m[k] = v;
    steps.set(r.step, m);
  }
  return steps;
}

const [a, b] = [read(beforeFile), read(afterFile)];
let same = 0;
const diffs = [];
for (const step of [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => x - y)) {
  const [ma, mb] = [a.get(step) ?? {}, b.get(step) ?? {}];
  for (const k of new Set([...Object.keys(ma), ...Object.keys(mb)])) {
    if (Object.is(ma[k], mb[k])) same++;
    else diffs.push({ step, k, before: ma[k], after: mb[k] });
  }
}
if (tableKeys.length) {
  const fmt = (v) => (v === undefined ? '—' : Number.isInteger(v) ? String(v) : v.toPrecision(8));
  console.log(`| step | metric | before | after |\n| --- | --- | --- | --- |`);
  for (const step of [...a.keys()].sort((x, y) => x - y))
    for (const k of tableKeys)
      if (a.get(step)?.[k] !== undefined || b.get(step)?.[k] !== undefined)
        console.log(`| ${step} | ${k} | ${fmt(a.get(step)?.[k])} | ${fmt(b.get(step)?.[k])} |`);
  console.log('');
}
for (const d of diffs) console.log(`differs: step ${d.step} ${d.k}: ${d.before} → ${d.after}`);
console.log(`${a.size} vs ${b.size} steps; ${same} values identical, ${diffs.length} differ`);
process.exitCode = diffs.length ? 1 : 0;
