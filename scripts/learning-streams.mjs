#!/usr/bin/env node
// What separates training streams that learn from flat or falling ones: each run's early signals (means
// over the first steps, and their change from the first two steps) beside its outcome (validation gain),
// with the Spearman rank correlation of each signal with the outcome across the runs.
//
//   node scripts/learning-streams.mjs                         # the committed solver-shaped runs (docs/results/learn-quick-cpu/runs)
//   node scripts/learning-streams.mjs --to 20 A=.data/learn-matrix/shaped/runs/b0-t0/train/metrics.jsonl B=…
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS_DIR = path.join(root, 'docs', 'results', 'learn-quick-cpu', 'runs');
// sessions 9–11: the same base (ci-b4), solver-shaped reward, turn_return credit, 32 groups × 2, lr 5e-4
const DEFAULT_RUNS = [
  'S9-A',
  'S9-B',
  'S9-C',
  'S9-D',
  'S9-F',
  'S9-G',
  'S9-H',
  'S9-I',
  'S10-H2',
  'S10-K',
  'S10-L',
  'S10-M',
  'S11-N',
  'S11-O',
];

/** Early signals: [label, metric, how]; `level` is the mean over the window, `change` its last 5 steps' mean minus steps 1–2's. */
const SIGNALS = [
  ['train success', 'train/success', 'change'],
  ['entropy', 'train/entropy', 'level'],
  ['Δ entropy', 'train/entropy', 'change'],
  ['Δ think/answer mismatch', 'train/diag/think_answer_mismatch_rate', 'change'],
  ['Δ contradicted claims', 'train/diag/contradicted_claim_rate', 'change'],
  ['grad norm', 'actor/grad_norm', 'level'],
  ['PPO KL', 'actor/ppo_kl', 'level'],
  ['in-group reward std', 'rollout/in_group_reward_std', 'level'],
  ['zero-std groups', 'rollout/filter_zero_std_groups', 'level'],
  ['mean advantage', 'critic/advantages/mean', 'level'],
  ['well-formed', 'train/well_formed_rate', 'level'],
  ['Δ actions / episode', 'train/num_actions', 'change'],
];

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/** Ranks (ties averaged) and Spearman's rho of the pairs where both values are numbers. */
export function spearman(xs, ys) {
  const pairs = xs.map((x, i) => [x, ys[i]]).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const rank = (v) => {
    const order = v.map((x, i) => [x, i]).sort((a, b) => a[0] - b[0]);
    const r = new Array(v.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
      for (let k = i; k <= j; k++) r[order[k][1]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const a = rank(pairs.map((p) => p[0]));
  const b = rank(pairs.map((p) => p[1]));
  const ma = mean(a);
  const mb = mean(b);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < a.length; i++) {
    num += (a[i] - ma) * (b[i] - mb);
    da += (a[i] - ma) ** 2;
    db += (b[i] - mb) ** 2;
  }
  return { rho: num / Math.sqrt(da * db), n: pairs.length };
}

/** One run's signals over steps from..to and its outcomes from the 64-seed in-run validations. */
export function streamSignals(rows, from, to) {
  const train = rows.filter((r) => r['train/success'] !== undefined);
  const val = new Map(rows.filter((r) => r['val/success'] !== undefined).map((r) => [r.step, r['val/success']]));
  const window = (metric, lo, hi) =>
    mean(train.filter((r) => r.step >= lo && r.step <= hi && r[metric] !== undefined).map((r) => r[metric]));
  const signals = {};
  for (const [label, metric, how] of SIGNALS) {
    const level = window(metric, from, to);
    signals[label] = how === 'level' ? level : window(metric, Math.max(from, to - 4), to) - window(metric, 1, 2);
  }
  const base = val.get(0);
  // several validations averaged: one 64-seed validation is ± 6 points
  const later = [...val].filter(([s]) => s >= 15 && s <= 30).map(([, v]) => v);
  const lr = train.map((r) => r['actor/lr']).filter((x) => x !== undefined);
  return {
    steps: train.length,
    // where the run ended on its learning-rate schedule: the last step's rate over the highest
    lrAtEnd: lr.length ? lr.at(-1) / Math.max(...lr) : NaN,
    signals,
    gainAt10: 100 * ((val.get(10) ?? NaN) - base),
    gain15to30: later.length >= 2 ? 100 * (mean(later) - base) : NaN,
  };
}

function main() {
  const { values, positionals } = parseArgs({
    options: { from: { type: 'string', default: '1' }, to: { type: 'string', default: '10' } },
    allowPositionals: true,
  });
  const from = Number(values.from);
  const to = Number(values.to);
  if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 1 && to >= from))
    throw new Error('--from and --to must be steps, 1 ≤ from ≤ to');
  const runs = (positionals.length ? positionals : DEFAULT_RUNS.map((r) => `${r}=${path.join(RUNS_DIR, `${r}.metrics.jsonl`)}`)).map(
    (a) => {
      const [label, file] = a.includes('=') ? a.split('=') : [path.basename(a), a];
      if (!existsSync(file)) throw new Error(`no metrics file ${file}`);
      const rows = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      // the 256-seed evaluation at the end, when one lies beside the metrics
      const evalFile = file.replace(/metrics\.jsonl$/, 'eval-final.json');
      const end256 = existsSync(evalFile) ? JSON.parse(readFileSync(evalFile, 'utf8')).metrics['val/success'] : NaN;
      return { label, ...streamSignals(rows, from, to), end256 };
    },
  );
  const f = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '–');
  const labels = SIGNALS.map(([l]) => l);
  const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '–');
  console.log(
    `Signals over steps ${from}–${to} (Δ: steps ${Math.max(from, to - 4)}–${to} minus steps 1–2); outcome: 64-seed validation gain in points\n`,
  );
  console.log(`| run | steps | lr at the end | 256 seeds at the end | gain at step 10 | mean gain, steps 15–30 | ${labels.join(' | ')} |`);
  console.log(`|---|---|---|---|---|---|${labels.map(() => '---').join('|')}|`);
  for (const r of runs) {
    const cells = [r.steps, pct(r.lrAtEnd), pct(r.end256), f(r.gainAt10, 1), f(r.gain15to30, 1), ...labels.map((l) => f(r.signals[l]))];
    console.log(`| ${r.label} | ${cells.join(' | ')} |`);
  }
  console.log(`\nSpearman rank correlation with the outcome (n: runs with both values)\n`);
  console.log('| signal | gain at step 10 | mean gain, steps 15–30 |');
  console.log('|---|---|---|');
  for (const l of labels) {
    const a = spearman(
      runs.map((r) => r.signals[l]),
      runs.map((r) => r.gainAt10),
    );
    const b = spearman(
      runs.map((r) => r.signals[l]),
      runs.map((r) => r.gain15to30),
    );
    console.log(`| ${l} | ${f(a.rho, 2)} (n ${a.n}) | ${f(b.rho, 2)} (n ${b.n}) |`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (e) {
    console.error(`error: ${e.message}`);
    process.exit(1);
  }
}
