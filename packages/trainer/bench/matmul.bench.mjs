// GFLOP/s of fp32 matmul on the shapes a quick-cpu update runs (starpo-tiny, 4096-token micro-batches)
// and at 2048², for each tfjs backend, the OpenBLAS kernel behind tfjs, and numpy (the machine's
// reference), side by side. Each arm runs in its own process (a process holds one wasm build),
// and the arms are interleaved over ROUNDS rounds (default 2); the best round counts, as the machine
// is shared. ARMS=a,b,... picks arms. Ratio: the arm over numpy on all cores.
import { execFileSync, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { machineLine } from './machine.mjs';

const SHAPES = [
  // [name, M, K, N, transA, transB]
  ['q/o proj 4096×96·96', 4096, 96, 96, false, true],
  ['k/v proj 4096×96·48', 4096, 96, 48, false, true],
  ['gate/up 4096×96·256', 4096, 96, 256, false, true],
  ['down 4096×256·96', 4096, 256, 96, false, true],
  ['grad W 256×4096·96 (Aᵀ)', 256, 4096, 96, true, false],
  ['scores 2000×24·1000 (Bᵀ)', 2000, 24, 1000, false, true],
  ['2048²', 2048, 2048, 2048, false, false],
];
const cores = availableParallelism();
const ARMS = {
  'numpy (all cores)': { py: cores },
  'numpy (1 thread)': { py: 1 },
  'tfjs cpu': { backend: 'cpu', matmul: 'tfjs' },
  'tfjs wasm SIMD': { backend: 'wasm', matmul: 'tfjs' },
  'tfjs wasm no SIMD': { backend: 'wasm', matmul: 'tfjs', noSimd: true },
  'tfjs wasm SIMD threads': { backend: 'wasm', matmul: 'tfjs', threads: cores },
  'wasm + OpenBLAS matMul (1 thread)': { backend: 'wasm', matmul: 'blas', blasThreads: 1 },
  [`wasm + OpenBLAS matMul (${cores} threads)`]: { backend: 'wasm', matmul: 'blas', blasThreads: cores },
};
const SECONDS = Number(process.env.SECONDS_PER_SHAPE ?? 0.4);

const PY = `
import sys, time, json, numpy as np
shapes, secs = json.loads(sys.argv[1]), float(sys.argv[2])
out = []
for name, m, k, n, ta, tb in shapes:
    a = np.random.rand(k, m).astype(np.float32) if ta else np.random.rand(m, k).astype(np.float32)
    b = np.random.rand(n, k).astype(np.float32) if tb else np.random.rand(k, n).astype(np.float32)
    f = lambda: (a.T if ta else a) @ (b.T if tb else b)
    f(); t = time.perf_counter(); r = 0
    while True:
        f(); r += 1
        if time.perf_counter() - t > secs: break
    out.append(2 * m * k * n * r / (time.perf_counter() - t) / 1e9)
print(json.dumps(out))
`;

async function runArm(arm) {
  const tf = await import('@tensorflow/tfjs');
  process.env.STARPO_MATMUL = arm.matmul;
  if (arm.blasThreads) process.env.OPENBLAS_NUM_THREADS = String(arm.blasThreads);
  let device;
  if (arm.backend === 'wasm' && (arm.noSimd || arm.threads)) {
    // the flags the wasm backend reads when it picks its build (tfjs turns threads off under Node)
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    const { createRequire } = await import('node:module');
    const path = await import('node:path');
    const dir = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    wasm.setWasmPaths(dir + path.sep);
    if (arm.noSimd) tf.env().set('WASM_HAS_SIMD_SUPPORT', false);
    if (arm.threads) {
      tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', true);
      wasm.setThreadsCount(arm.threads);
    }
    // tfjs reports a failed start through console.warn and a false setBackend: keep its reason
    const said = [];
    const warn = console.warn;
    console.warn = (...m) => said.push(m.map(String).join(' ').split('\n')[0]);
    const ok = await tf.setBackend('wasm').catch((e) => (said.push(String(e.message ?? e).split('\n')[0]), false));
    console.warn = warn;
    if (!ok) return { error: `setBackend(wasm) failed: ${said.join('; ') || 'no reason given'}` };
    device = `wasm ${arm.noSimd ? 'no SIMD' : 'SIMD'}, ${wasm.getThreadsCount()} thread(s)`;
  } else {
    const { initBackend } = await import('../dist/backend.js');
    const info = await initBackend(arm.backend);
    device = `${info.name} (${info.device})`;
  }
  const out = [];
  for (const [, m, k, n, ta, tb] of SHAPES) {
    if (arm.backend === 'cpu' && m * k * n > 1e9) {
      out.push(null); // minutes per product in pure JS
      continue;
    }
    const a = tf.randomNormal(ta ? [k, m] : [m, k]);
    const b = tf.randomNormal(tb ? [n, k] : [k, n]);
    tf.matMul(a, b, ta, tb).dispose();
    const t0 = performance.now();
    let reps = 0;
    while (performance.now() - t0 < SECONDS * 1000 || reps === 0) {
      const c = tf.matMul(a, b, ta, tb);
      if (reps === 0) c.dataSync(); // cpu and wasm run kernels synchronously; one read keeps that honest
      c.dispose();
      reps++;
    }
    out.push((2 * m * k * n * reps) / ((performance.now() - t0) / 1000) / 1e9);
    tf.dispose([a, b]);
  }
  return { device, gflops: out };
}

function runPy(threads) {
  try {
    execFileSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' });
  } catch {
    return { error: 'numpy not found (apt-get install python3-numpy): no reference' };
  }
  const env = { ...process.env, OPENBLAS_NUM_THREADS: String(threads), OMP_NUM_THREADS: String(threads) };
  const r = spawnSync('python3', ['-c', PY, JSON.stringify(SHAPES), String(SECONDS)], { env, encoding: 'utf8' });
  if (r.status !== 0) return { error: r.stderr.trim().split('\n').pop() };
  const cfg = spawnSync('python3', ['-c', 'import numpy; print(numpy.__version__)'], { encoding: 'utf8' }).stdout.trim();
  return { device: `numpy ${cfg}, ${threads} thread(s)`, gflops: JSON.parse(r.stdout) };
}

if (process.argv[2] === '--arm') {
  const res = await runArm(ARMS[process.argv[3]]);
  process.stdout.write(`\n@@${JSON.stringify(res)}\n`);
  process.exit(0);
}

console.log(machineLine());
const names = (process.env.ARMS ? process.env.ARMS.split(',') : Object.keys(ARMS)).filter((n) => ARMS[n]);
const rounds = Number(process.env.ROUNDS ?? 2);
const best = new Map();
for (let r = 0; r < rounds; r++) {
  for (const name of names) {
    process.stderr.write(`round ${r + 1}/${rounds}: ${name}\n`);
    const arm = ARMS[name];
    let res;
    if (arm.py) res = runPy(arm.py);
    else {
      const p = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--arm', name], { encoding: 'utf8', timeout: 300_000 });
      const line = p.stdout?.split('\n').find((l) => l.startsWith('@@'));
      res = line ? JSON.parse(line.slice(2)) : { error: `exited ${p.status}: ${(p.stderr ?? '').trim().split('\n').pop()}` };
    }
    const prev = best.get(name);
    if (!prev || res.error) best.set(name, prev && !prev.error ? prev : res);
    else best.set(name, { ...prev, gflops: prev.gflops.map((g, i) => (g == null ? null : Math.max(g, res.gflops[i]))) });
  }
}
const ref = best.get('numpy (all cores)');
console.log(`GFLOP/s, best of ${rounds} interleaved rounds of ${SECONDS} s per shape; (×) = share of numpy on all cores`);
for (const name of names) {
  const r = best.get(name);
  console.log(`${name}: ${r.error ? `unavailable: ${r.error}` : r.device}`);
}
const rows = {};
for (const [i, [shape]] of SHAPES.entries()) {
  rows[shape] = {};
  for (const name of names) {
    const r = best.get(name);
    const g = r.error ? null : r.gflops[i];
    const share = ref && !ref.error && g != null ? ` (${((100 * g) / ref.gflops[i]).toFixed(0)}%)` : '';
    rows[shape][name] = g == null ? '–' : `${g.toFixed(1)}${share}`;
  }
}
console.table(rows);
