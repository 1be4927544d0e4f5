import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { trainerSettings } from '../settings.js';

// The optional native addon (native/kernels.c, OpenBLAS) and how its kernels reach a tensor's floats
// on the cpu and wasm backends: in place, without copies.

export interface NativeKernels {
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
  /** OpenBLAS's kernels for this CPU (e.g. Haswell, Zen, SkylakeX); OPENBLAS_CORETYPE picks them. */
  coreName(): string;
  attentionForward(
    q: Float32Array,
    k: Float32Array,
    v: Float32Array,
    keys: Float32Array,
    out: Float32Array,
    probs: Float32Array | null,
    dims: number[],
    pos?: Float32Array,
    start?: Float32Array,
  ): void;
  attentionBackward(
    q: Float32Array,
    k: Float32Array,
    v: Float32Array,
    keys: Float32Array,
    probs: Float32Array,
    out: Float32Array,
    dOut: Float32Array,
    dq: Float32Array,
    dk: Float32Array,
    dv: Float32Array,
    dims: number[],
    pos?: Float32Array,
    start?: Float32Array,
  ): void;
  tokenLogProbs(logits: Float32Array, targets: Float32Array, out: Float32Array, b: number, l: number, v: number, temperature: number): void;
  tokenLogProbsBackward(
    logits: Float32Array,
    targets: Float32Array,
    dOut: Float32Array,
    dLogits: Float32Array,
    b: number,
    l: number,
    v: number,
    temperature: number,
  ): void;
  swiglu(gate: Float32Array, up: Float32Array, out: Float32Array, n: number): void;
  swigluBackward(gate: Float32Array, up: Float32Array, dOut: Float32Array, dGate: Float32Array, dUp: Float32Array, n: number): void;
  rmsNorm(x: Float32Array, w: Float32Array, out: Float32Array, rows: number, width: number, eps: number): void;
  rmsNormBackward(
    x: Float32Array,
    w: Float32Array,
    dOut: Float32Array,
    dx: Float32Array,
    dw: Float32Array,
    rows: number,
    width: number,
    eps: number,
  ): void;
}

const require = createRequire(import.meta.url);
let addon: NativeKernels | null | undefined;

/** The addon, or null with the reason it could not load. */
export function loadSgemm(): { addon: NativeKernels | null; why?: string } {
  if (addon !== undefined) return { addon };
  try {
    addon = require(fileURLToPath(new URL('../../native/build/kernels.node', import.meta.url))) as NativeKernels;
    // the compute pool already gives each core its own thread
    addon.setThreads(trainerSettings().OPENBLAS_NUM_THREADS);
    return { addon };
  } catch (e) {
    addon = null;
    return {
      addon,
      why: `native/build/kernels.node did not load (${(e as Error).message.split('\n')[0]}); run npm run build -w @starpo/trainer with libopenblas-dev installed`,
    };
  }
}

export type TensorInfo = tf.TensorInfo;
/** How a backend hands out a tensor's floats and makes an output the kernel may write. */
export interface Storage {
  read(t: TensorInfo): Float32Array;
  alloc(shape: number[]): { info: TensorInfo; data: Float32Array };
}

interface WasmBackendLike {
  dataIdMap: { get(id: unknown): { memoryOffset: number } };
  makeOutput(shape: number[], dtype: 'float32'): TensorInfo;
  wasm: { HEAPU8: Uint8Array };
}
interface CpuBackendLike {
  data: { get(id: unknown): { values: Float32Array | Int32Array | Uint8Array } };
  makeTensorInfo(shape: number[], dtype: 'float32', values: Float32Array): TensorInfo;
}

export const size = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

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
    read: (t) => {
      // the cpu backend casts int32 to float32 by sharing the Int32Array
      const v = backend.data.get(t.dataId).values;
      return v instanceof Float32Array ? v : Float32Array.from(v);
    },
    alloc(shape) {
      const data = new Float32Array(size(shape));
      return { info: backend.makeTensorInfo(shape, 'float32', data), data };
    },
  };
}

export function storageOf(backendName: 'cpu' | 'wasm', backend: unknown): Storage {
  return backendName === 'wasm' ? wasmStorage(backend as WasmBackendLike) : cpuStorage(backend as CpuBackendLike);
}
