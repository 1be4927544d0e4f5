import * as tf from '@tensorflow/tfjs';
import { overrideWasmKernel, restoreWasmKernel } from './wasm-kernel-override.js';

// tfjs-backend-wasm's Identity copies the tensor, and the engine runs it for every tensor a gradient
// saves (saveTensorsForBackwardMode clones each): a quarter of an update's kernel time went to copying
// attention's saved [B, nH, L, T] probabilities (docs/results/engine.md). No kernel writes into its
// inputs, so the output can share the input's memory by reference count, as the cpu backend's does.

interface RefCounted {
  incRef(dataId: unknown): void;
}

/** Make Identity on the wasm backend share its input's memory; idempotent. */
export function installSharedIdentity(): void {
  overrideWasmKernel(tf.Identity, (original) => (args) => {
    const x = (args.inputs as { x: tf.TensorInfo }).x;
    if (x.dtype === 'string') return original.kernelFunc(args);
    (args.backend as unknown as RefCounted).incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  });
}

/** Put the copying kernel back (tests compare both in one process). */
export function uninstallSharedIdentity(): void {
  restoreWasmKernel(tf.Identity);
}
