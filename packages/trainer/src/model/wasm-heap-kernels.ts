import * as tf from '@tensorflow/tfjs';
import { overrideWasmKernel, restoreWasmKernel } from './wasm-kernel-override.js';

// Two tfjs-backend-wasm kernels that copy data were far slower than copying: Slice first copies
// its whole input out of the wasm heap into a fresh ArrayBuffer (readSync), and GatherV2 moves
// every element through a strided index loop. Cutting 10 rows of a [35, 2, 892, 24] KV cache took
// 20 ms and gathering 31,824 rows of 48 values 95 ms; together they were half of a rollout's
// kernel time (docs/results/2026-12-03-ten-times-data.md §6). These copy heap to heap, run by run.

type Heap = Float32Array | Int32Array | Uint8Array;

interface WasmBackend {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Heap;
}

const KERNELS: { name: string; func: (args: Parameters<tf.KernelFunc>[0], original: tf.KernelConfig) => tf.TensorInfo }[] = [
  { name: tf.Slice, func: slice },
  { name: tf.GatherV2, func: gather },
];

/** Put this module's Slice and GatherV2 in place of the wasm backend's; idempotent. */
export function installHeapKernels(): void {
  for (const { name, func } of KERNELS) overrideWasmKernel(name, (original) => (args) => func(args, original));
}

/** Put the library's kernels back (tests compare both in one process). */
export function uninstallHeapKernels(): void {
  for (const { name } of KERNELS) restoreWasmKernel(name);
}

function slice(args: Parameters<tf.KernelFunc>[0], original: tf.KernelConfig): tf.TensorInfo {
  const x = (args.inputs as { x: tf.TensorInfo }).x;
  if (x.dtype === 'string' || x.shape.length === 0) return original.kernelFunc(args) as tf.TensorInfo;
  const { begin, size } = args.attrs as unknown as { begin: number | number[]; size?: number | number[] };
  const [from, shape] = tf.slice_util.parseSliceParams(x as tf.Tensor, begin, size) as [number[], number[]];
  const backend = args.backend as unknown as WasmBackend;
  const out = backend.makeOutput(shape, x.dtype);
  // views taken after the output's allocation, which may grow (and so replace) the heap's buffer
  copySlice(backend.typedArrayFromHeap(x), x.shape, from, shape, backend.typedArrayFromHeap(out));
  return out;
}

function gather(args: Parameters<tf.KernelFunc>[0], original: tf.KernelConfig): tf.TensorInfo {
  const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
  if (x.dtype === 'string' || indices.dtype !== 'int32') return original.kernelFunc(args) as tf.TensorInfo;
  const { axis, batchDims } = args.attrs as unknown as { axis: number; batchDims: number };
  const parsedAxis = tf.util.parseAxisParam(axis, x.shape)[0]!;
  const info = tf.backend_util.segment_util.collectGatherOpShapeInfo(x as tf.Tensor, indices as tf.Tensor, parsedAxis, batchDims);
  const backend = args.backend as unknown as WasmBackend;
  const { batchSize, outerSize, dimSize, sliceSize } = info;
  // checked before the output exists, so a refusal leaves nothing allocated
  for (const i of backend.typedArrayFromHeap(indices))
    if (!(i >= 0 && i < dimSize)) throw new Error(`GatherV2: the index value ${i} is not in [0, ${dimSize - 1}]`);
  const out = backend.makeOutput(info.outputShape, x.dtype);
  const src = backend.typedArrayFromHeap(x);
  const idx = backend.typedArrayFromHeap(indices);
  const dst = backend.typedArrayFromHeap(out);
  const perBatch = idx.length / batchSize;
  let at = 0;
  for (let b = 0; b < batchSize; b++)
    for (let o = 0; o < outerSize; o++) {
      const base = (b * outerSize + o) * dimSize * sliceSize;
      for (let i = 0; i < perBatch; i++, at += sliceSize) {
        const from = base + idx[b * perBatch + i]! * sliceSize;
        // short rows are copied in a loop: a subarray view per row costs more than its copy
        if (sliceSize < 64) for (let k = 0; k < sliceSize; k++) dst[at + k] = src[from + k]!;
        else dst.set(src.subarray(from, from + sliceSize), at);
      }
    }
  return out;
}

/**
 * Copy the box at `from` of extent `shape` out of row-major `src` (of `srcShape`, rank ≥ 1) into `dst`. The
 * trailing axes the box spans whole, with the first one it cuts, form contiguous runs; each run is
 * one `set`.
 */
function copySlice(src: Heap, srcShape: number[], from: number[], shape: number[], dst: Heap): void {
  const rank = srcShape.length;
  if (shape.some((n) => n === 0)) return;
  const strides = new Array<number>(rank);
  for (let d = rank - 1, s = 1; d >= 0; d--) {
    strides[d] = s;
    s *= srcShape[d]!;
  }
  // the axis where runs start: every axis after it is taken whole
  let axis = rank - 1;
  while (axis > 0 && shape[axis] === srcShape[axis]) axis--;
  const run = shape.slice(axis).reduce((a, b) => a * b, 1);
  const outer = shape.slice(0, axis);
  const count = outer.reduce((a, b) => a * b, 1);
  const base = from.reduce((acc, f, d) => acc + f * strides[d]!, 0);
  const index = new Array<number>(axis).fill(0);
  for (let n = 0, at = 0; n < count; n++, at += run) {
    let offset = base;
    for (let d = 0; d < axis; d++) offset += index[d]! * strides[d]!;
    dst.set(src.subarray(offset, offset + run), at);
    for (let d = axis - 1; d >= 0 && ++index[d]! === outer[d]; d--) index[d] = 0;
  }
}
