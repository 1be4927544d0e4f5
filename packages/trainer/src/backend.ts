import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { installBlasMatMul, type MatmulEngine } from './model/blas-kernel.js';
import { installSharedIdentity } from './model/wasm-identity.js';

export type BackendName = 'tensorflow' | 'webgpu' | 'wasm' | 'cpu';
export type BackendChoice = BackendName | 'auto';

export interface BackendInfo {
  name: BackendName;
  /** Human-readable device, e.g. "CUDA GPU", "NVIDIA H200 (Vulkan)", "wasm SIMD". */
  device: string;
  gpu: boolean;
}

const require = createRequire(import.meta.url);

/** tfjs-node installs without its native library when its download fails; importing it then only spams warnings. */
function hasNativeBinding(pkg: string): boolean {
  try {
    const lib = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'lib');
    const stack = [lib];
    while (stack.length) {
      const dir = stack.pop()!;
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) stack.push(path.join(dir, e.name));
        else if (e.name === 'tfjs_binding.node') return true;
      }
    }
  } catch {
    // not installed
  }
  return false;
}

async function tryTensorflow(): Promise<BackendInfo | null> {
  for (const pkg of ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node']) {
    if (!hasNativeBinding(pkg)) continue;
    try {
      await import(pkg);
      if (await tf.setBackend('tensorflow'))
        return {
          name: 'tensorflow',
          device: pkg.endsWith('gpu') ? 'CUDA GPU (libtensorflow)' : 'CPU (libtensorflow)',
          gpu: pkg.endsWith('gpu'),
        };
    } catch {
      // optional dependency missing or its native library failed to load
    }
  }
  return null;
}

async function tryWebgpu(): Promise<BackendInfo | null> {
  try {
    // The `webgpu` package is Dawn for Node; it installs navigator.gpu-style globals.
    const dawn = (await import('webgpu' as string)) as { create: (flags: string[]) => GPU; globals: Record<string, unknown> };
    Object.assign(globalThis, dawn.globals);
    const gpu = dawn.create([]);
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return null;
    const about = (adapter as unknown as { info?: Record<string, string> }).info ?? {};
    // A software Vulkan (llvmpipe, SwiftShader) is slower than the wasm backend: skip it.
    if (
      /cpu/i.test(about.adapterType ?? '') ||
      /llvmpipe|swiftshader|lavapipe/i.test(`${about.description} ${about.device} ${about.architecture}`)
    )
      return null;
    Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true, writable: true });
    await import('@tensorflow/tfjs-backend-webgpu');
    if (!(await tf.setBackend('webgpu'))) return null;
    const info = (adapter as unknown as { info?: { vendor?: string; device?: string; description?: string } }).info;
    return { name: 'webgpu', device: `${info?.description || info?.device || info?.vendor || 'GPU'} (Dawn)`, gpu: true };
  } catch {
    return null;
  }
}

async function tryWasm(): Promise<BackendInfo | null> {
  try {
    const mod = await import('@tensorflow/tfjs-backend-wasm');
    // a bundle (the GPU check) imports this CommonJS package as { default }
    const wasm = ('setWasmPaths' in mod ? mod : (mod as unknown as { default: typeof mod }).default) as typeof mod;
    const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    wasm.setWasmPaths(dir + path.sep);
    if (!(await tf.setBackend('wasm'))) return null;
    return { name: 'wasm', device: 'wasm SIMD (1 thread)', gpu: false };
  } catch {
    return null;
  }
}

async function useCpu(): Promise<BackendInfo> {
  await tf.setBackend('cpu');
  return { name: 'cpu', device: 'pure JS', gpu: false };
}

const TRIERS: Record<BackendName, () => Promise<BackendInfo | null>> = {
  tensorflow: tryTensorflow,
  webgpu: tryWebgpu,
  wasm: tryWasm,
  cpu: useCpu,
};

let current: BackendInfo | null = null;

/**
 * Pick the tensor backend: STARPO_BACKEND or `choice` when given, else the first that works of
 * tensorflow (tfjs-node-gpu / tfjs-node) → webgpu (Dawn) → wasm → cpu. Logs the choice.
 */
export async function initBackend(choice: BackendChoice = 'auto', log: (msg: string) => void = () => {}): Promise<BackendInfo> {
  const wanted = (process.env.STARPO_BACKEND as BackendChoice | undefined) ?? choice;
  if (current && (wanted === 'auto' || wanted === current.name)) return current;
  const order: BackendName[] = wanted === 'auto' ? ['tensorflow', 'webgpu', 'wasm', 'cpu'] : [wanted];
  for (const name of order) {
    const info = await TRIERS[name]();
    if (info) {
      await tf.ready();
      if (info.name === 'wasm' || info.name === 'cpu') info.device += matmulEngineNote(info.name, log);
      current = info;
      log(`tensor backend: ${info.name} (${info.device})`);
      return info;
    }
  }
  throw new Error(`tensor backend "${wanted}" is not available on this machine`);
}

/**
 * STARPO_MATMUL=tfjs keeps the backend's own kernels throughout; otherwise (default `blas`) the cpu and
 * wasm backends run matMul and attention on OpenBLAS when the optional addon is built, and wasm's
 * Identity shares memory instead of copying. Returns the note for the device line.
 */
function matmulEngineNote(name: 'wasm' | 'cpu', log: (msg: string) => void): string {
  const wanted = (process.env.STARPO_MATMUL ?? 'blas') as MatmulEngine;
  if (wanted !== 'blas' && wanted !== 'tfjs') throw new Error(`STARPO_MATMUL must be blas or tfjs, not "${wanted}"`);
  if (wanted === 'tfjs') return ', tfjs matMul';
  if (name === 'wasm') installSharedIdentity();
  const r = installBlasMatMul(name);
  if (!r.ok) log(`matMul stays on tfjs: ${r.why}`);
  return r.ok ? ', OpenBLAS matMul' : ', tfjs matMul';
}

export function backendInfo(): BackendInfo | null {
  return current;
}

export { tf };
