// quick-cpu training steps with the old and the new engine settings as arms, from the same base and
// seeds, each arm in its own process (the matMul kernel is chosen once per process), interleaved
// over ROUNDS rounds (default 1) because the machine is shared: phase times, the speed-up, and each
// step's metrics side by side (the arms must learn the same thing, up to float noise).
// BASE=<model folder> (default .data/bases/sokoban-coord-tiny, which `npm run bench:learn` pretrains),
// or starpo-tiny/<size> (random weights: the replies never parse, so it only times the machinery),
// STEPS=n (default 2), THREADS=n compute threads on cpu/wasm (default: cores), ARMS=old,new (default
// both), SET="path=value ..." config overrides for every arm (e.g. a smaller rollout for a dry run).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { machineLine } from './machine.mjs';

/** Engine settings of each arm: environment for the process, config overrides for the run. */
const ARMS = {
  old: { env: { STARPO_MATMUL: 'tfjs' }, set: [] },
  new: { env: { STARPO_MATMUL: 'blas' }, set: [] },
};
const PHASES = ['gen', 'old_log_prob', 'update_actor', 'step'];
/** Metrics compared between arms: what the policy did and how the update moved it. */
const METRICS = ['train/success', 'train/num_actions', 'train/response_length', 'actor/loss', 'actor/grad_norm', 'actor/entropy'];

const base = process.env.BASE ?? '.data/bases/sokoban-coord-tiny';
const steps = Number(process.env.STEPS ?? 2);
const threads = Number(process.env.THREADS ?? availableParallelism());

async function runArm(name) {
  const { applySetting, buildRunConfig } = await import('@starpo/contracts');
  const { initBackend } = await import('../dist/backend.js');
  const { ComputePool } = await import('../dist/parallel/pool.js');
  const { train } = await import('../dist/train/loop.js');
  const { MemorySink } = await import('../dist/train/sink.js');
  const { loadBaseModel } = await import('../dist/bases/load.js');
  const info = await initBackend('auto');
  const overrides = {
    env: { name: 'sokoban' },
    model: { base },
    training: { steps, checkpointEvery: 0, trainTrajectoryShare: 0 },
    rollout: { validation: { every: 0, beforeTraining: false } },
  };
  for (const a of [...(process.env.SET ?? '').split(/\s+/).filter(Boolean), ...ARMS[name].set]) applySetting(overrides, a);
  const config = buildRunConfig('quick-cpu', overrides);
  const b = loadBaseModel(base, config.training.seed);
  // the pool gives CPU backends one thread per core; a GPU backend runs alone
  const cpuBackend = info.name === 'wasm' || info.name === 'cpu';
  const pool = threads > 1 && cpuBackend ? await ComputePool.start(threads - 1, b.model, b.tokenizer, info.name) : null;
  const sink = new MemorySink();
  await train({ config, base: b, sink, pool });
  await pool?.close();
  const points = [...sink.points.entries()].sort((x, y) => x[0] - y[0]).map(([, m]) => m);
  return { device: `${info.name} (${info.device})`, points, groups: `${config.rollout.envGroups} groups × ${config.rollout.groupSize}` };
}

if (process.argv[2] === '--arm') {
  const r = await runArm(process.argv[3]);
  process.stdout.write(`\n@@${JSON.stringify(r)}\n`);
  process.exit(0);
}

// a random model writes 96-token replies that never parse: a step of it measures nothing useful
if (!base.startsWith('starpo-tiny/') && !existsSync(`${base}/config.json`)) {
  console.error(
    `no base model in ${base}: set BASE=<folder> or pretrain one (npx starpo pretrain --env sokoban --config tiny --obs grid_coord --out ${base})`,
  );
  process.exit(2);
}
console.log(machineLine());
const names = process.env.ARMS ? process.env.ARMS.split(',') : Object.keys(ARMS);
for (const n of names) if (!ARMS[n]) throw new Error(`unknown arm ${n} (arms: ${Object.keys(ARMS).join(', ')})`);
const rounds = Number(process.env.ROUNDS ?? 1);
const runs = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < rounds; r++)
  for (const name of names) {
    process.stderr.write(`round ${r + 1}/${rounds}: ${name} (${JSON.stringify(ARMS[name])}), ${steps} steps\n`);
    const p = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--arm', name], {
      encoding: 'utf8',
      env: { ...process.env, ...ARMS[name].env },
      maxBuffer: 1 << 26,
    });
    const line = p.stdout?.split('\n').find((l) => l.startsWith('@@'));
    if (!line) throw new Error(`arm ${name} failed (exit ${p.status}): ${(p.stderr ?? '').trim().split('\n').slice(-5).join('\n')}`);
    runs[name].push(JSON.parse(line.slice(2)));
  }

const first = runs[names[0]][0];
console.log(`${base}, quick-cpu, ${first.groups}, ${steps} step(s) per arm, ${threads} compute thread(s), ${rounds} interleaved round(s)`);
for (const n of names) console.log(`  ${n}: ${runs[n][0].device}; settings ${JSON.stringify(ARMS[n])}`);
/** Mean of a phase's seconds over the steps of every round from step `from` (0-based). */
const phaseMean = (n, p, from = 0) => {
  const xs = runs[n].flatMap((r) => r.points.slice(from).map((m) => m[`timing_s/${p}`] ?? 0));
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};
// a process's first step also pays for first-time work (compiling, the heap's first touch of its
// memory); the steps after it are what the rest of a run costs
const tables = [['seconds per step (mean)', 0], ...(steps > 1 ? [['after the first step', 1]] : [])];
for (const [title, from] of tables) {
  console.log(`\n${title.padEnd(23)}${names.map((n) => n.padStart(12)).join('')}   speed-up ${names.at(-1)} vs ${names[0]}`);
  for (const p of PHASES) {
    const v = names.map((n) => phaseMean(n, p, from));
    console.log(`${p.padEnd(23)}${v.map((x) => x.toFixed(2).padStart(12)).join('')}   ${(v[0] / v.at(-1)).toFixed(2)}×`);
  }
}
const tok = names.map((n) => runs[n].flatMap((r) => r.points.map((m) => m['perf/tokens_per_s'])));
console.log(`${'tokens/s'.padEnd(23)}${tok.map((t) => (t.reduce((a, b) => a + b, 0) / t.length).toFixed(0).padStart(12)).join('')}`);
console.log(`\nmetrics per step, round 1 (${names.join(' | ')})`);
const rows = {};
for (let s = 0; s < steps; s++)
  for (const k of METRICS) {
    const v = names.map((n) => runs[n][0].points[s]?.[k]);
    if (v.every((x) => x === undefined)) continue;
    rows[`${s + 1} ${k}`] = Object.fromEntries(names.map((n, i) => [n, v[i] === undefined ? '–' : Number(v[i].toPrecision(6))]));
  }
console.table(rows);
