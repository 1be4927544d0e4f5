// One quick-cpu training step (rollout, scoring, update) with 1 and with N compute threads, run one
// after the other in this process on the same base and seeds: phase times and the speed-up.
// BASE=<model folder> (default .data/bases/sokoban-coord-tiny, which `npm run bench:learn` pretrains), THREADS=N (default: cores).
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { buildRunConfig } from '@starpo/contracts';
import { initBackend } from '../dist/backend.js';
import { ComputePool } from '../dist/parallel/pool.js';
import { train } from '../dist/train/loop.js';
import { MemorySink } from '../dist/train/sink.js';
import { loadBaseModel } from '../dist/train/models.js';

const info = await initBackend('auto', (m) => console.log(m));
const base = process.env.BASE ?? '.data/bases/sokoban-coord-tiny';
// a random model writes 96-token replies that never parse: a step of it measures nothing useful
if (!existsSync(`${base}/config.json`)) {
  console.error(
    `no base model in ${base}: set BASE=<folder> or pretrain one (npx starpo pretrain --env sokoban --config tiny --out ${base})`,
  );
  process.exit(2);
}
const threads = Number(process.env.THREADS ?? availableParallelism());
const config = buildRunConfig('quick-cpu', {
  env: { name: 'sokoban' },
  model: { base },
  training: { steps: 1, checkpointEvery: 0, trainTrajectoryShare: 0 },
  rollout: { validation: { every: 0, beforeTraining: false } },
});
const phases = ['gen', 'old_log_prob', 'update_actor', 'step'];

async function step(n) {
  const b = loadBaseModel(base, config.training.seed);
  const pool = n > 1 ? await ComputePool.start(n - 1, b.model, b.tokenizer, info.name) : null;
  const sink = new MemorySink();
  await train({ config, base: b, sink, pool });
  await pool?.close();
  b.model.dispose();
  const m = sink.points.get(1);
  return Object.fromEntries(phases.map((p) => [p, m[`timing_s/${p}`]]));
}

console.log(`${base}, quick-cpu, ${config.rollout.envGroups} groups × ${config.rollout.groupSize}, ${info.name}`);
const one = await step(1);
const many = await step(threads);
console.log(`phase          1 thread   ${threads} threads   speed-up`);
for (const p of phases)
  console.log(`${p.padEnd(14)} ${one[p].toFixed(1).padStart(7)} s ${many[p].toFixed(1).padStart(8)} s   ${(one[p] / many[p]).toFixed(2)}×`);
