#!/usr/bin/env node
// Learning matrix: fresh Sokoban bases from the README's pretrain command (one per pretrain seed), each
// trained with quick-cpu under several training seeds for a budget counted in optimizer steps; base and
// final policy evaluated on the same validation seeds. Prints and writes (matrix.md, matrix.json) the
// per-run table with the median and the worst gain. Finished runs are skipped, so a killed matrix resumes.
//
//   npm run bench:learn-matrix                                   # 3 bases × 2 seeds × 80 steps, 256 eval seeds
//   BASES=3 SEEDS=1 STEPS=10 EPISODES=64 npm run bench:learn-matrix
//   npm run bench:learn-matrix -- --reward sparse                # the paper's reward and StarPO-S (below)
//   npm run bench:learn-matrix -- --dry-run                      # prints the commands only
//   npm run bench:learn-matrix -- --only b1-t0,b2-t0 --set algorithm.consistentCreditOnly=true --out DIR   # a lever on some cells
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PRETRAIN_DEFAULTS } from '@starpo/contracts';
import { streamSignals } from './learning-streams.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const STARPO = path.join(root, 'packages', 'trainer', 'dist', 'cli', 'main.js');

/**
 * Overrides on top of quick-cpu per reward. `sparse` is the paper's setting: the environment's own reward
 * (no solver shaping), trajectory-level GRPO advantages credited to every token, the StarPO-S variance
 * filter keeping the 25% most uncertain groups (of 16 groups × 4, the same 64 rollouts a step), clip-higher
 * 0.28 and no KL; quick-cpu's sizes, learning rate and its schedule stay.
 */
export const REWARD_SETS = {
  shaped: [],
  sparse: [
    'env.config.rewardShaping=none',
    'algorithm.advEstimator=grpo',
    'algorithm.grpoNormByStd=true',
    'algorithm.advantageClip=null',
    'algorithm.negativeAdvantageScale=1',
    'algorithm.turnCredit=sum',
    'algorithm.groundedCreditOnly=false',
    'rollout.envGroups=16',
    'rollout.groupSize=4',
    'filter.metric=std',
    'filter.ratio=0.25',
    'ppo.clipRatioHigh=0.28',
    'ppo.kl.coef=0',
  ],
};

const OPTIONS = {
  bases: { type: 'string', default: process.env.BASES || '3' },
  seeds: { type: 'string', default: process.env.SEEDS || '2' },
  steps: { type: 'string', default: process.env.STEPS || '80' },
  dialogues: { type: 'string', default: process.env.DIALOGUES || String(PRETRAIN_DEFAULTS.dialogues) },
  epochs: { type: 'string', default: process.env.EPOCHS || String(PRETRAIN_DEFAULTS.epochs) },
  'dagger-rounds': { type: 'string', default: process.env.DAGGER_ROUNDS || '0' },
  imitation: { type: 'string', default: process.env.IMITATION || '0' },
  episodes: { type: 'string', default: process.env.EPISODES || '256' },
  reward: { type: 'string', default: process.env.REWARD || 'shaped' },
  size: { type: 'string', default: process.env.SIZE || 'tiny' },
  'pretrain-val': { type: 'string', default: process.env.PRETRAIN_VAL || '64' },
  workers: { type: 'string', default: process.env.WORKERS || 'auto' },
  backend: { type: 'string', default: process.env.BACKEND || 'auto' },
  'bases-dir': { type: 'string', default: process.env.BASES_DIR || '.data/bases/matrix' },
  out: { type: 'string', default: process.env.OUT || undefined },
  set: { type: 'string', multiple: true, default: process.env.SET ? [process.env.SET] : [] },
  only: { type: 'string', default: process.env.ONLY || '' },
  'dry-run': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
};

const HELP = `npm run bench:learn-matrix -- [options]   (each option also reads the env variable in capitals)
  --bases N         fresh bases, pretrain seeds 0…N-1 (3)
  --seeds N         training seeds per base, training.seed 0…N-1 (2)
  --steps N         optimizer steps per run (80, quick-cpu's budget)
  --dialogues N     teacher dialogues per base (${PRETRAIN_DEFAULTS.dialogues}, the pretrain default)   --epochs N (${PRETRAIN_DEFAULTS.epochs})
  --dagger-rounds N on-policy rounds of the bases' pretrain (0)
  --imitation N     the imitation arm: instead of RL, each cell continues imitation from its base on N
                    fresh clean dialogues (starpo pretrain --init); compare at equal wall time (0 = RL)
  --episodes N      validation seeds for the before/after evaluation (256)
  --reward R        shaped (quick-cpu) | sparse (rewardShaping none + StarPO-S, GRPO)
  --size S          model size: nano | tiny | small (tiny)       --pretrain-val N (64)
  --workers N       compute threads per process (auto)           --backend B (auto)
  --set "K=V ..."   more training overrides, space-separated (SET="a=1 b=2")
  --bases-dir DIR   where the bases go (.data/bases/matrix)      --out DIR (.data/learn-matrix/<reward>)
  --only CELLS      run only these cells of the matrix, e.g. "b1-t0,b2-t0" (all)
  --dry-run         print the plan and commands, run nothing`;

/** Parsed and checked options; throws an Error naming the option on bad input. */
export function parseOptions(argv) {
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false });
  const int = (name, min) => {
    const v = Number(values[name]);
    if (!Number.isInteger(v) || v < min) throw new Error(`--${name} must be an integer ≥ ${min}, not "${values[name]}"`);
    return v;
  };
  if (!(values.reward in REWARD_SETS)) throw new Error(`--reward must be ${Object.keys(REWARD_SETS).join(' or ')}, not "${values.reward}"`);
  if (!['nano', 'tiny', 'small'].includes(values.size)) throw new Error(`--size must be nano, tiny or small, not "${values.size}"`);
  const set = values.set.flatMap((s) => s.split(/\s+/)).filter(Boolean);
  for (const s of set) if (!/^[\w.]+=/.test(s)) throw new Error(`--set takes path=value, not "${s}"`);
  const only = values.only.split(',').filter(Boolean);
  for (const c of only) if (!/^b\d+-t\d+$/.test(c)) throw new Error(`--only takes cells like b0-t1, not "${c}"`);
  const o = {
    bases: int('bases', 1),
    seeds: int('seeds', 1),
    steps: int('steps', 1),
    dialogues: int('dialogues', 1),
    epochs: int('epochs', 1),
    daggerRounds: int('dagger-rounds', 0),
    imitation: int('imitation', 0),
    episodes: int('episodes', 1),
    pretrainVal: int('pretrain-val', 1),
    reward: values.reward,
    size: values.size,
    workers: values.workers,
    backend: values.backend,
    basesDir: path.resolve(root, values['bases-dir']),
    out: path.resolve(root, values.out ?? path.join('.data', 'learn-matrix', Number(values.imitation) > 0 ? 'imitation' : values.reward)),
    set,
    only,
    dryRun: values['dry-run'],
    help: values.help,
  };
  const outside = only.find((c) => {
    const [b, t] = c.slice(1).split('-t').map(Number);
    return b >= o.bases || t >= o.seeds;
  });
  if (outside) throw new Error(`--only names ${outside}, outside the ${o.bases} bases × ${o.seeds} seeds of the matrix`);
  return o;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pts = (x) => (100 * x).toFixed(1);
const signed = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
const early = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(3)}` : '–');
const minutes = (s) => `${(s / 60).toFixed(1)} min`;

/** The table, median and worst gain as markdown; `runs` are the finished runs' records. */
export function summarize(o, runs) {
  const gains = runs.map((r) => r.gainPoints);
  const p = runs.reduce((a, r) => a + r.before, 0) / Math.max(1, runs.length);
  const summary = { runs: runs.length, medianGain: median(gains), worstGain: Math.min(...gains), bestGain: Math.max(...gains) };
  const lines = [
    o.imitation > 0
      ? `# Learning matrix: imitation arm, ${o.imitation} more clean dialogues`
      : `# Learning matrix: quick-cpu, ${o.reward} reward`,
    '',
    `Bases: ${o.bases} (pretrain seeds 0–${o.bases - 1}, ${o.dialogues} dialogues, ${o.epochs} epochs, ${o.daggerRounds} on-policy rounds, ${o.size}); training seeds per base: ${o.seeds}; ` +
      (o.imitation > 0 ? 'no RL: imitation continued from each base; ' : `budget: ${o.steps} optimizer steps; `) +
      `before and after on ${o.episodes} validation seeds (T 0.5).` +
      (o.set.length || REWARD_SETS[o.reward].length ? ` Overrides: \`${[...REWARD_SETS[o.reward], ...o.set].join(' ')}\`.` : ''),
    '',
    '| base seed | train seed | before | after | gain (points) | steps | train wall time | s/step | Δ entropy, steps 1–10 | Δ think/answer mismatch, steps 1–10 |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.baseSeed} | ${r.trainSeed} | ${pts(r.before)}% | ${pts(r.after)}% | ${signed(r.gainPoints)} | ${r.steps} | ${minutes(r.trainSeconds)} | ${(r.trainSeconds / Math.max(1, r.steps)).toFixed(0)} | ${early(r.early?.['Δ entropy'])} | ${early(r.early?.['Δ think/answer mismatch'])} |`,
    ),
    '',
    runs.length
      ? `**Median gain ${signed(summary.medianGain)} points, worst ${signed(summary.worstGain)}, best ${signed(summary.bestGain)}** over ${runs.length} runs` +
        ` (one evaluation on ${o.episodes} seeds has a standard error of ± ${pts(Math.sqrt((p * (1 - p)) / o.episodes))} points at the bases' ${pts(p)}%).`
      : 'No run finished yet.',
    '',
  ];
  return { markdown: lines.join('\n'), summary };
}

/** Runs a command with inherited output (the CLI's own progress); rejects on a non-zero exit. */
function sh(cmd, args, dryRun) {
  const shown = (a) => (a === process.execPath ? 'node' : a.startsWith(root + path.sep) ? path.relative(root, a) : a);
  const line = [cmd, ...args].map((a) => (/[\s"]/.test(a) ? JSON.stringify(a) : shown(a))).join(' ');
  console.log(`$ ${line}`);
  if (dryRun) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${line}: exited with ${signal ?? code}`))));
  });
}

/** Run statuses after which the final checkpoint is the run's result. */
const FINISHED = ['succeeded', 'stopped_early'];
const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));
const readJsonl = (f) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const lastCheckpoint = (dir) => {
  const d = path.join(dir, 'checkpoints');
  const steps = existsSync(d)
    ? readdirSync(d)
        .filter((n) => n.startsWith('step-'))
        .sort()
    : [];
  return steps.length ? path.join(d, steps.at(-1)) : null;
};

async function evaluate(o, model, json) {
  if (existsSync(json)) return readJson(json).metrics['val/success'];
  const tmp = `${json}.partial`;
  await sh(
    process.execPath,
    [STARPO, 'eval', '--model', model, '--episodes', String(o.episodes), '--workers', o.workers, '--backend', o.backend, '--json', tmp],
    o.dryRun,
  );
  if (o.dryRun) return NaN;
  renameSync(tmp, json);
  return readJson(json).metrics['val/success'];
}

/** A fresh base: pretrained into a side folder and renamed when complete, so a killed pretrain is redone. */
async function ensureBase(o, seed) {
  const dagger = o.daggerRounds ? `-dag${o.daggerRounds}` : '';
  const dir = path.join(o.basesDir, `sokoban-${o.size}-d${o.dialogues}-e${o.epochs}${dagger}-s${seed}`);
  if (existsSync(path.join(dir, 'model.safetensors'))) {
    console.log(`base ${seed}: ${path.relative(root, dir)} (exists)`);
    return dir;
  }
  const tmp = `${dir}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  // the README's command: `starpo pretrain --env sokoban --config tiny`, with the seed (and sizes) of this matrix
  await sh(
    process.execPath,
    [
      STARPO,
      'pretrain',
      '--env',
      'sokoban',
      '--config',
      o.size,
      '--dialogues',
      String(o.dialogues),
      '--epochs',
      String(o.epochs),
      '--val',
      String(o.pretrainVal),
      '--seed',
      String(seed),
      '--dagger-rounds',
      String(o.daggerRounds),
      '--backend',
      o.backend,
      '--out',
      tmp,
    ],
    o.dryRun,
  );
  if (!o.dryRun) renameSync(tmp, dir);
  return dir;
}

/**
 * The imitation arm of a cell: more imitation of the clean teacher from the same base, on fresh dialogues
 * (a dialogue seed range of the training seed's own), then the same evaluation as an RL run.
 */
async function imitateOne(o, baseSeed, trainSeed, baseDir, before, dir, resultFile) {
  const model = path.join(dir, 'model');
  const t0 = Date.now();
  if (!existsSync(path.join(model, 'model.safetensors'))) {
    if (!o.dryRun) mkdirSync(dir, { recursive: true });
    rmSync(`${model}.partial`, { recursive: true, force: true });
    const args = ['pretrain', '--env', 'sokoban', '--init', baseDir, '--dialogues', String(o.imitation), '--epochs', '1'];
    args.push('--seed', String(100 + trainSeed), '--val', String(o.pretrainVal), '--backend', o.backend, '--out', `${model}.partial`);
    await sh(process.execPath, [STARPO, ...args], o.dryRun);
    if (o.dryRun) return null;
    renameSync(`${model}.partial`, model);
    writeFileSync(path.join(dir, 'train-seconds'), String((Date.now() - t0) / 1000));
  }
  if (o.dryRun) return null;
  const after = await evaluate(o, model, path.join(dir, 'eval-final.json'));
  const record = {
    baseSeed,
    trainSeed,
    base: path.relative(root, baseDir),
    arm: 'imitation',
    before,
    after,
    gainPoints: 100 * (after - before),
    steps: 0,
    dialogues: o.imitation,
    status: 'succeeded',
    stopReason: null,
    trainSeconds: Number(readFileSync(path.join(dir, 'train-seconds'), 'utf8')),
    episodes: o.episodes,
    reward: o.reward,
    overrides: [],
  };
  writeFileSync(resultFile, JSON.stringify(record, null, 2));
  return record;
}

/** One training run and its evaluation; returns its record (read back when it finished before). */
async function runOne(o, baseSeed, trainSeed, baseDir, before) {
  const dir = path.join(o.out, 'runs', `b${baseSeed}-t${trainSeed}`);
  const resultFile = path.join(dir, 'result.json');
  if (existsSync(resultFile)) return { ...readJson(resultFile), skipped: true };
  if (o.imitation > 0) return imitateOne(o, baseSeed, trainSeed, baseDir, before, dir, resultFile);
  const trainDir = path.join(dir, 'train');
  const secondsFile = path.join(dir, 'train-seconds');
  const statusOf = () => (existsSync(path.join(trainDir, 'status.json')) ? readJson(path.join(trainDir, 'status.json')).status : null);
  // wall time of the training alone, summed over the invocations that resumed it
  let trainSeconds = existsSync(secondsFile) ? Number(readFileSync(secondsFile, 'utf8')) : 0;
  if (!FINISHED.includes(statusOf())) {
    const t0 = Date.now();
    if (!o.dryRun) mkdirSync(dir, { recursive: true });
    const ckpt = lastCheckpoint(trainDir);
    if (ckpt && statusOf() !== 'failed') {
      await sh(process.execPath, [STARPO, 'train', '--resume', trainDir, '--workers', o.workers], o.dryRun);
    } else {
      rmSync(trainDir, { recursive: true, force: true });
      trainSeconds = 0;
      const sets = [`training.seed=${trainSeed}`, ...REWARD_SETS[o.reward], ...o.set];
      const args = ['--preset', 'quick-cpu', '--env', 'sokoban', '--base', baseDir, '--steps', String(o.steps)];
      args.push('--backend', o.backend, '--workers', o.workers, '--out', trainDir, '--set', ...sets);
      await sh(process.execPath, [STARPO, 'train', ...args], o.dryRun);
    }
    if (o.dryRun) {
      const final = path.join(trainDir, 'checkpoints', `step-${String(o.steps).padStart(6, '0')}`);
      await evaluate(o, final, path.join(dir, 'eval-final.json'));
      return null;
    }
    trainSeconds += (Date.now() - t0) / 1000;
    writeFileSync(secondsFile, String(trainSeconds));
    // the CLI exits 0 for a run that failed or was cancelled: its status says so
    if (!FINISHED.includes(statusOf()))
      throw new Error(`${path.relative(root, trainDir)}: training ended "${statusOf()}" (see its log.txt)`);
  }
  const final = lastCheckpoint(trainDir);
  if (!final) throw new Error(`${trainDir}: training left no checkpoint`);
  const after = await evaluate(o, final, path.join(dir, 'eval-final.json'));
  const st = readJson(path.join(trainDir, 'status.json'));
  const record = {
    baseSeed,
    trainSeed,
    base: path.relative(root, baseDir),
    arm: 'rl',
    before,
    after,
    gainPoints: 100 * (after - before),
    steps: Number(path.basename(final).slice('step-'.length)),
    status: st.status,
    stopReason: st.stopReason ?? null,
    trainSeconds,
    episodes: o.episodes,
    reward: o.reward,
    overrides: [...REWARD_SETS[o.reward], ...o.set],
    // the early signals that went with the gain in the committed runs (docs/results/2026-12-02-learning-streams.md)
    early: streamSignals(readJsonl(path.join(trainDir, 'metrics.jsonl')), 1, 10).signals,
  };
  writeFileSync(resultFile, JSON.stringify(record, null, 2));
  // the per-step metrics stay; trajectories and intermediate checkpoints are large
  rmSync(path.join(trainDir, 'trajectories.jsonl'), { force: true });
  for (const c of readdirSync(path.join(trainDir, 'checkpoints')))
    if (path.join(trainDir, 'checkpoints', c) !== final) rmSync(path.join(trainDir, 'checkpoints', c), { recursive: true });
  return record;
}

async function main() {
  const o = parseOptions(process.argv.slice(2));
  if (o.help) return console.log(HELP);
  if (!o.dryRun && !existsSync(STARPO)) throw new Error(`${path.relative(root, STARPO)} missing: npm run build -w @starpo/trainer`);
  if (!o.dryRun) mkdirSync(o.out, { recursive: true });
  const wanted = (b, t) => !o.only.length || o.only.includes(`b${b}-t${t}`);
  const total = o.only.length || o.bases * o.seeds;
  console.log(
    `learning matrix: ${o.bases} bases × ${o.seeds} seeds × ${o.steps} steps, ${o.reward} reward → ${path.relative(root, o.out)}`,
  );
  const started = Date.now();
  const runs = [];
  let n = 0;
  for (let b = 0; b < o.bases; b++) {
    if (!Array.from({ length: o.seeds }, (_, t) => wanted(b, t)).some(Boolean)) continue;
    console.log(`\n== base ${b + 1}/${o.bases} (pretrain seed ${b}) ==`);
    const baseDir = await ensureBase(o, b);
    // the bases' evaluations are shared by every reward's matrix
    if (!o.dryRun) mkdirSync(path.join(o.basesDir, 'evals'), { recursive: true });
    const before = await evaluate(o, baseDir, path.join(o.basesDir, 'evals', `${path.basename(baseDir)}.ep${o.episodes}.json`));
    if (!o.dryRun) console.log(`base ${b}: ${pts(before)}% on ${o.episodes} validation seeds`);
    for (let t = 0; t < o.seeds; t++) {
      if (!wanted(b, t)) continue;
      n++;
      const elapsed = (Date.now() - started) / 1000;
      console.log(`\n== run ${n}/${total}: base ${b}, training seed ${t} (${minutes(elapsed)} so far) ==`);
      const r = await runOne(o, b, t, baseDir, before);
      if (!r) continue;
      console.log(
        `run ${n}/${total}${r.skipped ? ' (finished before)' : ''}: ${pts(r.before)}% → ${pts(r.after)}% (${signed(r.gainPoints)}) in ${r.steps} steps, ${minutes(r.trainSeconds)}`,
      );
      delete r.skipped;
      runs.push(r);
      const { markdown, summary } = summarize(o, runs);
      writeFileSync(path.join(o.out, 'matrix.md'), markdown);
      writeFileSync(
        path.join(o.out, 'matrix.json'),
        JSON.stringify({ options: { ...o, dryRun: undefined, help: undefined }, summary, runs }, null, 2),
      );
    }
  }
  if (o.dryRun) return;
  console.log(`\n${summarize(o, runs).markdown}`);
  console.log(`written: ${path.relative(root, path.join(o.out, 'matrix.md'))}, matrix.json (${minutes((Date.now() - started) / 1000)})`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(`error: ${e.message}`);
    process.exit(1);
  });
}
