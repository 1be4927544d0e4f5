import * as tf from '@tensorflow/tfjs';

// tfjs-backend-wasm's Identity copies the tensor, and the engine runs it for every tensor a gradient
// saves (saveTensorsForBackwardMode clones each): a quarter of an update's kernel time went to copying
// attention's saved [B, nH, L, T] probabilities (docs/results/engine.md). No kernel writes into its
// inputs, so the output can share the input's memory by reference count, as the cpu backend's does.

interface RefCounted {
  incRef(dataId: unknown): void;
}

let original: tf.KernelConfig | undefined;

/** Make Identity on the wasm backend share its input's memory; idempotent. */
export function installSharedIdentity(): void {
  if (original) return;
  original = tf.getKernel(tf.Identity, 'wasm');
  if (!original) return;
  tf.unregisterKernel(tf.Identity, 'wasm');
  tf.registerKernel({
    kernelName: tf.Identity,
    backendName: 'wasm',
    kernelFunc: (args) => {
      const x = (args.inputs as { x: tf.TensorInfo }).x;
      if (x.dtype === 'string') return original!.kernelFunc(args);
      (args.backend as unknown as RefCounted).incRef(x.dataId);
      return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
    },
  });
}

/** Put the copying kernel back (tests compare both in one process). */
export function uninstallSharedIdentity(): void {
  if (!original) return;
  tf.unregisterKernel(tf.Identity, 'wasm');
  tf.registerKernel(original);
  original = undefined;
}
