import * as tf from '@tensorflow/tfjs';

/** The library's kernels this project replaced on the wasm backend, by name, to put back. */
const originals = new Map<string, tf.KernelConfig>();

/**
 * Register `make(original)` as wasm's kernel `name` in place of the library's, which it may call
 * for what it does not handle; idempotent (a kernel already replaced stays as it is).
 */
export function overrideWasmKernel(name: string, make: (original: tf.KernelConfig) => tf.KernelFunc): void {
  if (originals.has(name)) return;
  const original = tf.getKernel(name, 'wasm');
  if (!original) return;
  originals.set(name, original);
  tf.unregisterKernel(name, 'wasm');
  tf.registerKernel({ kernelName: name, backendName: 'wasm', kernelFunc: make(original) });
}

/** Put the library's kernel `name` back (tests compare both in one process). */
export function restoreWasmKernel(name: string): void {
  const original = originals.get(name);
  if (!original) return;
  tf.unregisterKernel(name, 'wasm');
  tf.registerKernel(original);
  originals.delete(name);
}
