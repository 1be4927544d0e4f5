// Where one quick-cpu step's time goes, kernel by kernel: a single training step in this process (no
// compute pool, so every kernel runs where this process times it), split by the loop's phases (gen,
// old_log_prob, update_actor, …). Per phase: wall seconds, the seconds inside tfjs kernels, and the
// kernels that took most of them (name, calls, seconds, share). What is not inside a kernel is
// JavaScript around them: the gradient tape, tidy scopes, sampling, tokenising, the environment.
// BASE=<model folder> (default models/bases/sokoban-tiny), TOP=n kernels per phase (default 12),
// SET="path=value ..." config overrides (e.g. rollout.envGroups=8 for a shorter run),
// STARPO_MATMUL=tfjs|blas selects the matMul engine as everywhere.
import { machineLine } from './machine.mjs';

const base = process.env.BASE ?? 'models/bases/sokoban-tiny';
const top = Number(process.env.TOP ?? 12);

const { applySetting, buildRunConfig } = await import('@starpo/contracts');
const { initBackend, tf } = await import('../dist/backend.js');
const { train } = await import('../dist/train/loop.js');
const { MemorySink } = await import('../dist/train/sink.js');
const { loadBaseModel } = await import('../dist/bases/load.js');

const info = await initBackend('auto');
console.log(machineLine(`${info.name} (${info.device})`));
const overrides = {
  env: { name: 'sokoban' },
  model: { base },
  training: { steps: 1, checkpointEvery: 0, trainTrajectoryShare: 0 },
  rollout: { validation: { every: 0, beforeTraining: false } },
};
for (const a of (process.env.SET ?? '').split(/\s+/).filter(Boolean)) applySetting(overrides, a);
const config = buildRunConfig('quick-cpu', overrides);
const b = loadBaseModel(base, config.training.seed);

// every kernel of the backend re-registered with a timer around it (tf.profile turns a kernel that
// throws into a rejected promise nobody awaits); a phase owns the kernel time from its start on
const phases = new Map();
let current = { kernelMs: 0, calls: 0, byName: new Map() };
phases.set('setup', current);
for (const k of tf.getKernelsForBackend(info.name)) {
  const run = k.kernelFunc;
  tf.unregisterKernel(k.kernelName, info.name);
  tf.registerKernel({
    ...k,
    kernelFunc: (args) => {
      const t0 = performance.now();
      try {
        return run(args);
      } finally {
        const ms = performance.now() - t0;
        const p = current;
        p.kernelMs += ms;
        p.calls++;
        // a kernel called on one position (a decode step) is listed apart from its prefill and training calls
        const decode = Object.values(args.inputs).some((t) => t?.shape?.length === 4 && t.shape[2] === 1);
        const name = decode ? `${k.kernelName} (decode)` : k.kernelName;
        const e = p.byName.get(name) ?? { ms: 0, calls: 0, shapes: new Map() };
        e.ms += ms;
        e.calls++;
        const shape = Object.values(args.inputs)
          .map((t) => `[${t?.shape ?? ''}]`)
          .join(' ');
        e.shapes.set(shape, (e.shapes.get(shape) ?? 0) + ms);
        p.byName.set(name, e);
      }
    },
  });
}
const sink = new MemorySink();
const cpu0 = process.cpuUsage();
await train({
  config,
  base: b,
  sink,
  pool: null,
  // update_actor runs once per mini-batch: its runs share one entry
  onPhase: (name) => phases.set(name, (current = phases.get(name) ?? { kernelMs: 0, calls: 0, byName: new Map() })),
});
const metrics = [...sink.points.values()][0] ?? {};

console.log(`${base}, quick-cpu, one step, ${config.rollout.envGroups} groups × ${config.rollout.groupSize}, no pool`);
for (const [name, p] of phases) {
  const wall = metrics[`timing_s/${name}`];
  if (wall === undefined && p.kernelMs < 50) continue;
  const wallS = wall ?? NaN;
  console.log(
    `\n${name}: wall ${wallS.toFixed(2)} s, in kernels ${(p.kernelMs / 1000).toFixed(2)} s (${((p.kernelMs / 1000 / wallS) * 100).toFixed(0)}%), ${p.calls} kernel calls`,
  );
  const rows = [...p.byName.entries()].sort((x, y) => y[1].ms - x[1].ms).slice(0, top);
  for (const [k, e] of rows) {
    const [shape] = [...e.shapes.entries()].sort((x, y) => y[1] - x[1])[0];
    console.log(
      `  ${k.padEnd(28)} ${String(e.calls).padStart(7)} calls ${(e.ms / 1000).toFixed(2).padStart(8)} s ${((e.ms / p.kernelMs) * 100).toFixed(1).padStart(5)}%   most in ${shape}`,
    );
  }
}
// CPU seconds of this process: less sensitive than wall time to other work on a shared machine
const cpu = process.cpuUsage(cpu0);
console.log(
  `\nstep wall ${Number(metrics['timing_s/step']).toFixed(2)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s, ${metrics['perf/total_num_tokens']} tokens`,
);
