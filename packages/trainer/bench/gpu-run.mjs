// The GPU check's runner (bundled by scripts/gpu-check.mjs; run it through the bundle's run.sh):
// probes the GPU backends (webgpu through Dawn, tensorflow through tfjs-node-gpu), prints the CPU
// (wasm) figure of bench:policy, then for each GPU backend that loaded bench:policy at starpo-tiny
// sizes and the Qwen2.5-0.5B shape and two quick-cpu steps with their phase times, each named by its
// backend (STARPO_BACKEND, which refuses to fall back). Under 10 minutes in all. Exits 2, saying so,
// when no GPU backend loads. Everything it prints also goes to $OUT/gpu-check.log when OUT is set.
// --dry-run: wasm, tiny sizes, one short step (CI); --probe: only the probes.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dry = process.argv.includes('--dry-run');
const logFile = process.env.OUT ? path.join(process.env.OUT, 'gpu-check.log') : null;
if (logFile) mkdirSync(process.env.OUT, { recursive: true });
const say = (text) => {
  process.stdout.write(text);
  if (logFile) appendFileSync(logFile, text);
};
const line = (text) => say(`${text}\n`);
const started = Date.now();

/** The whole check stays under 10 minutes: no part runs past this many seconds from the start. */
const BUDGET_S = 570;

/** Run a bundled script with extra environment; its output is shown and logged as it comes. */
function run(script, env, wantS) {
  const limitS = Math.max(1, Math.min(wantS, BUDGET_S - (Date.now() - started) / 1000));
  return new Promise((resolve) => {
    line(
      `\n$ ${Object.entries(env)
        .map(([k, v]) => `${k}=${JSON.stringify(String(v))}`)
        .join(' ')} node ${script}`,
    );
    const t0 = Date.now();
    const child = spawn(process.execPath, [path.join(here, script)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    const take = (d) => {
      text += d;
      say(String(d));
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), limitS * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const secs = ((Date.now() - t0) / 1000).toFixed(0);
      line(signal ? `[${script}: stopped after ${limitS} s]` : `[${script}: exit ${code}, ${secs} s]`);
      resolve({ ok: code === 0, text });
    });
  });
}

/** What Dawn sees: the adapter it would use, or why there is none. */
async function probeWebgpu() {
  try {
    const dawn = await import('webgpu');
    const gpu = dawn.create([]);
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return { found: false, note: 'Dawn found no adapter (Vulkan driver missing? see VK_ICD_FILENAMES above)' };
    const i = adapter.info ?? {};
    const software = /cpu/i.test(i.adapterType ?? '') || /llvmpipe|swiftshader|lavapipe/i.test(`${i.description} ${i.device}`);
    return {
      found: !software,
      note: `${i.vendor ?? ''} ${i.architecture ?? ''} ${i.device ?? ''} ${i.description ?? ''} (${i.adapterType ?? '?'}, ${i.backendType ?? '?'})`.replace(
        /\s+/g,
        ' ',
      ),
    };
  } catch (e) {
    return { found: false, note: `webgpu did not load: ${String(e.message ?? e).split('\n')[0]}` };
  }
}

line(`GPU check${dry ? ' (dry run: wasm, tiny sizes)' : ''}: Node ${process.version}, ${process.platform}-${process.arch}`);
line(`VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? '(unset)'}  LD_LIBRARY_PATH=${process.env.LD_LIBRARY_PATH ?? '(unset)'}`);
const base = existsSync(path.join(here, 'base', 'config.json')) ? path.join(here, 'base') : 'starpo-tiny/tiny';
/** Whether tfjs-node-gpu loads with its CUDA libtensorflow (the bundle carries it only when the build machine could fetch it). */
async function probeTensorflow() {
  try {
    await import('@tensorflow/tfjs-node-gpu');
    return { found: true, note: 'tfjs-node-gpu loaded' };
  } catch (e) {
    return { found: false, note: `tfjs-node-gpu did not load: ${String(e.message ?? e).split('\n')[0]}` };
  }
}

const gpus = {};
if (!dry) {
  gpus.webgpu = await probeWebgpu();
  gpus.tensorflow = await probeTensorflow();
  for (const [name, g] of Object.entries(gpus)) line(`${name}: ${g.found ? 'LOADED' : 'not loaded'} — ${g.note}`);
}
const loaded = Object.keys(gpus).filter((name) => gpus[name].found);
if (process.argv.includes('--probe')) process.exit(loaded.length ? 0 : 2);
const backend = dry ? { STARPO_BACKEND: 'wasm' } : {};
const results = [];
if (dry) {
  results.push(await run('policy.bench.js', { ...backend, SIZES: 'nano', BATCH: 4, PROMPT: 32, NEW: 4, UPDATE_BATCH: 2, REPS: 1 }, 240));
  results.push(
    await run(
      'step.bench.js',
      {
        ...backend,
        ARMS: 'new',
        STEPS: 1,
        THREADS: 1,
        BASE: base,
        SET: 'rollout.envGroups=2 rollout.groupSize=2 rollout.maxNewTokens=12 ppo.epochs=1 ppo.miniBatchSize=4 ppo.microBatchSize=4',
      },
      240,
    ),
  );
} else {
  // the CPU figure first, so a failing GPU still leaves the reference in the log
  results.push(await run('policy.bench.js', { STARPO_BACKEND: 'wasm', SIZES: 'tiny' }, 100));
  for (const name of loaded) {
    const on = { STARPO_BACKEND: name };
    results.push(await run('policy.bench.js', { ...on, SIZES: 'tiny,small' }, 100));
    results.push(
      await run('policy.bench.js', { ...on, SIZES: 'qwen2.5-0.5b', BATCH: 16, PROMPT: 256, NEW: 32, UPDATE_BATCH: 8, REPS: 2 }, 100),
    );
    results.push(await run('step.bench.js', { ...on, ARMS: 'new', STEPS: 2, THREADS: 1, BASE: base }, 150));
  }
  if (!loaded.length) {
    line(
      `\nFAILED: no GPU backend loaded (${Object.entries(gpus)
        .map(([n, g]) => `${n}: ${g.note}`)
        .join('; ')}). Only the CPU figure above ran.`,
    );
    process.exit(2);
  }
}
const failed = results.filter((r) => !r.ok).length;
line(
  `\nGPU check done in ${((Date.now() - started) / 1000).toFixed(0)} s: ${results.length - failed} of ${results.length} parts ran${base.startsWith('starpo-tiny') ? '; steps from a random starpo-tiny (no bundled base)' : ''}`,
);
process.exit(failed ? 1 : 0);
