import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';

// tf.matMul on the cpu and wasm backends through an OpenBLAS sgemm (native/sgemm.c), when that optional
// addon is built: tfjs-backend-wasm reaches 2–12 GFLOP/s on the update's shapes, OpenBLAS several
// times more (docs/results/engine.md). The tfjs kernel stays registered underneath as the fallback
// for what the addon does not handle (non-float32, uneven batch broadcasting).

interface Sgemm {
  sgemm(
    a: Float32Array,
    b: Float32Array,
    c: Float32Array,
    batch: number,
    m: number,
    n: number,
    k: number,
    transA: boolean,
    transB: boolean,
    strideA: number,
    strideB: number,
  ): void;
  setThreads(n: number): void;
}

export type MatmulEngine = 'tfjs' | 'blas';

const require = createRequire(import.meta.url);
let addon: Sgemm | null | undefined;

/** The addon, or null with the reason it could not load. */
export function loadSgemm(): { addon: Sgemm | null; why?: string } {
  if (addon !== undefined) return { addon };
  try {
    addon = require(fileURLToPath(new URL('../../native/build/sgemm.node', import.meta.url))) as Sgemm;
    // the compute pool already gives each core its own thread
    addon.setThreads(Number(process.env.OPENBLAS_NUM_THREADS ?? 1));
    return { addon };
  } catch (e) {
    addon = null;
    return {
      addon,
      why: `native/build/sgemm.node did not load (${(e as Error).message.split('\n')[0]}); run npm run build -w @starpo/trainer with libopenblas-dev installed`,
    };
  }
}

type TensorInfo = tf.TensorInfo;
interface MatmulAttrs {
  transposeA: boolean;
  transposeB: boolean;
}
/** How a backend hands out a tensor's floats and makes an output the kernel may write. */
interface Storage {
  read(t: TensorInfo): Float32Array;
  alloc(shape: number[]): { info: TensorInfo; data: Float32Array };
}

interface WasmBackendLike {
  dataIdMap: { get(id: unknown): { memoryOffset: number } };
  makeOutput(shape: number[], dtype: 'float32'): TensorInfo;
  wasm: { HEAPU8: Uint8Array };
}
interface CpuBackendLike {
  data: { get(id: unknown): { values: Float32Array } };
  makeTensorInfo(shape: number[], dtype: 'float32', values: Float32Array): TensorInfo;
}

const size = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

function wasmStorage(backend: WasmBackendLike): Storage {
  // the heap's buffer is read at each use: a later allocation may grow the memory and replace it
  const view = (t: TensorInfo) => new Float32Array(backend.wasm.HEAPU8.buffer, backend.dataIdMap.get(t.dataId).memoryOffset, size(t.shape));
  return {
    read: view,
    alloc(shape) {
      const info = backend.makeOutput(shape, 'float32');
      return { info, data: view(info) };
    },
  };
}

function cpuStorage(backend: CpuBackendLike): Storage {
  return {
    read: (t) => backend.data.get(t.dataId).values,
    alloc(shape) {
      const data = new Float32Array(size(shape));
      return { info: backend.makeTensorInfo(shape, 'float32', data), data };
    },
  };
}

/**
 * a [...batchA, M, K] × b [...batchB, K, N] (or transposed) when each operand's batch is either the
 * full output batch or a single matrix; null for what the fallback should do.
 */
function sgemmMatMul(s: Sgemm, store: Storage, a: TensorInfo, b: TensorInfo, attrs: MatmulAttrs): TensorInfo | null {
  if (a.dtype !== 'float32' || b.dtype !== 'float32' || a.shape.length < 2 || b.shape.length < 2) return null;
  const ra = a.shape.length;
  const rb = b.shape.length;
  const m = attrs.transposeA ? a.shape[ra - 1]! : a.shape[ra - 2]!;
  const k = attrs.transposeA ? a.shape[ra - 2]! : a.shape[ra - 1]!;
  const kb = attrs.transposeB ? b.shape[rb - 1]! : b.shape[rb - 2]!;
  const n = attrs.transposeB ? b.shape[rb - 2]! : b.shape[rb - 1]!;
  if (k !== kb) return null;
  const outer = tf.broadcast_util.assertAndGetBroadcastShape(a.shape.slice(0, -2), b.shape.slice(0, -2));
  const batch = size(outer);
  const batchA = size(a.shape.slice(0, -2));
  const batchB = size(b.shape.slice(0, -2));
  if ((batchA !== batch && batchA !== 1) || (batchB !== batch && batchB !== 1)) return null;
  const out = store.alloc([...outer, m, n]);
  if (batch * m * n === 0) return out.info;
  if (k === 0) {
    out.data.fill(0);
    return out.info;
  }
  s.sgemm(
    store.read(a),
    store.read(b),
    out.data,
    batch,
    m,
    n,
    k,
    attrs.transposeA,
    attrs.transposeB,
    batchA === 1 ? 0 : m * k,
    batchB === 1 ? 0 : k * n,
  );
  return out.info;
}

const originals = new Map<string, tf.KernelConfig>();

/**
 * Route BatchMatMul on `backendName` (cpu or wasm) through the addon. Returns why not when the
 * addon is missing; idempotent.
 */
export function installBlasMatMul(backendName: 'cpu' | 'wasm'): { ok: boolean; why?: string } {
  if (originals.has(backendName)) return { ok: true };
  const { addon: s, why } = loadSgemm();
  if (!s) return { ok: false, why };
  const original = tf.getKernel(tf.BatchMatMul, backendName);
  if (!original) return { ok: false, why: `no BatchMatMul kernel registered for ${backendName}` };
  tf.unregisterKernel(tf.BatchMatMul, backendName);
  tf.registerKernel({
    kernelName: tf.BatchMatMul,
    backendName,
    setupFunc: original.setupFunc,
    disposeFunc: original.disposeFunc,
    kernelFunc: (args) => {
      const { a, b } = args.inputs as { a: TensorInfo; b: TensorInfo };
      const store =
        backendName === 'wasm'
          ? wasmStorage(args.backend as unknown as WasmBackendLike)
          : cpuStorage(args.backend as unknown as CpuBackendLike);
      return sgemmMatMul(s, store, a, b, args.attrs as unknown as MatmulAttrs) ?? original.kernelFunc(args);
    },
  });
  originals.set(backendName, original);
  return { ok: true };
}

/** Put the tfjs kernel back (tests compare both in one process). */
export function uninstallBlasMatMul(backendName: 'cpu' | 'wasm'): void {
  const original = originals.get(backendName);
  if (!original) return;
  originals.delete(backendName);
  tf.unregisterKernel(tf.BatchMatMul, backendName);
  tf.registerKernel(original);
}

/** Whether tf.matMul on the current backend runs through the addon (plain, transposed and batched alike). */
export function blasActive(): boolean {
  return originals.has(tf.getBackend());
}
