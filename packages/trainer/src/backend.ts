import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type { Engine } from '@starpo/contracts';
import { installBlasMatMul, type MatmulEngine } from './model/blas-kernel.js';
import { loadSgemm } from './model/native-addon.js';
import { installSharedIdentity } from './model/wasm-identity.js';
import { installHeapKernels } from './model/wasm-heap-kernels.js';
import { trainerSettings } from './settings.js';

export type BackendName = 'tensorflow' | 'webgpu' | 'wasm' | 'cpu';
export type BackendChoice = BackendName | 'auto';

export interface BackendInfo {
  name: BackendName;
  /** Human-readable device, e.g. "CUDA GPU", "NVIDIA H200 (Vulkan)", "wasm SIMD". */
  device: string;
  gpu: boolean;
  /** Whose kernels do the heavy products: `tfjs` on a CPU backend is the slow engine (no OpenBLAS addon). */
  engine: Engine;
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

/** A backend that works (its engine is settled once it is chosen), or why it was passed over (one short phrase, for the start-up line). */
type Tried = Omit<BackendInfo, 'engine'> | string;

async function tryTensorflow(): Promise<Tried> {
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
  return 'no tfjs-node native library';
}

/**
 * Dawn prints "Couldn't load Vulkan" with a stack when Linux has no Vulkan loader; on such a machine
 * WebGPU cannot work, so it is not tried (other systems use Metal or D3D12).
 */
function hasVulkanLoader(): boolean {
  if (process.platform !== 'linux') return true;
  const dirs = [
    ...(trainerSettings().LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
    '/usr/lib/x86_64-linux-gnu',
    '/usr/lib/aarch64-linux-gnu',
    '/lib/x86_64-linux-gnu',
    '/lib/aarch64-linux-gnu',
    '/usr/lib64',
    '/usr/lib',
    '/usr/local/lib',
  ];
  return dirs.some((d) => existsSync(path.join(d, 'libvulkan.so.1')));
}

async function tryWebgpu(): Promise<Tried> {
  if (!hasVulkanLoader()) return 'no Vulkan loader (libvulkan.so.1), so no GPU through WebGPU';
  try {
    // The `webgpu` package is Dawn for Node; it installs navigator.gpu-style globals.
    const dawn = (await import('webgpu' as string)) as { create: (flags: string[]) => GPU; globals: Record<string, unknown> };
    Object.assign(globalThis, dawn.globals);
    const gpu = dawn.create([]);
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return 'no WebGPU adapter';
    const about = (adapter as unknown as { info?: Record<string, string> }).info ?? {};
    // A software Vulkan (llvmpipe, SwiftShader) is slower than the wasm backend: skip it.
    if (
      /cpu/i.test(about.adapterType ?? '') ||
      /llvmpipe|swiftshader|lavapipe/i.test(`${about.description} ${about.device} ${about.architecture}`)
    )
      return 'only a software Vulkan, slower than wasm';
    Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true, writable: true });
    await import('@tensorflow/tfjs-backend-webgpu');
    if (!(await tf.setBackend('webgpu'))) return 'the webgpu backend failed to start';
    const info = (adapter as unknown as { info?: { vendor?: string; device?: string; description?: string } }).info;
    return { name: 'webgpu', device: `${info?.description || info?.device || info?.vendor || 'GPU'} (Dawn)`, gpu: true };
  } catch {
    return 'WebGPU (Dawn) not installed or failed to load';
  }
}

async function tryWasm(): Promise<Tried> {
  try {
    const mod = await import('@tensorflow/tfjs-backend-wasm');
    // a bundle (the GPU check) imports this CommonJS package as { default }
    const wasm = ('setWasmPaths' in mod ? mod : (mod as unknown as { default: typeof mod }).default) as typeof mod;
    const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    wasm.setWasmPaths(dir + path.sep);
    if (!(await tf.setBackend('wasm'))) return 'the wasm backend failed to start';
  } catch {
    return 'the wasm backend failed to load';
  }
  reserveWasmHeap(trainerSettings().STARPO_WASM_HEAP_MB);
  return { name: 'wasm', device: 'wasm SIMD (1 thread)', gpu: false };
}

/** The exports of tfjs-backend-wasm's module that grow its heap (emscripten's allocator). */
interface WasmHeap {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
}

/**
 * Grow the wasm heap to `mb` MiB once, at start-up. Grown a step at a time instead (dozens of
 * times in a first quick-cpu step), each growth counts as new external memory to V8, which answers
 * with a full garbage collection. The pages are not touched until a tensor uses them.
 */
function reserveWasmHeap(mb: number): void {
  const heap = (tf.backend() as unknown as { wasm: WasmHeap }).wasm;
  const bytes = mb * 2 ** 20;
  if (bytes <= heap.HEAPU8.length) return;
  // one block of the whole size: the heap then holds at least that much whatever was in use
  const ptr = heap._malloc(bytes);
  if (ptr) heap._free(ptr);
}

async function useCpu(): Promise<Tried> {
  await tf.setBackend('cpu');
  return { name: 'cpu', device: 'pure JS', gpu: false };
}

const TRIERS: Record<BackendName, () => Promise<Tried>> = {
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
  const wanted = trainerSettings().STARPO_BACKEND ?? choice;
  if (current && (wanted === 'auto' || wanted === current.name)) return current;
  const order: BackendName[] = wanted === 'auto' ? ['tensorflow', 'webgpu', 'wasm', 'cpu'] : [wanted];
  const passed: string[] = [];
  for (const name of order) {
    const info = await TRIERS[name]();
    if (typeof info === 'string') {
      passed.push(`${name}: ${info}`);
      continue;
    }
    await tf.ready();
    const engine: Engine = info.name === 'wasm' || info.name === 'cpu' ? cpuEngine(info.name, log) : 'native';
    if (engine !== 'native') info.device += engine === 'openblas' ? `, OpenBLAS matMul${blasCore()}` : ', tfjs matMul';
    current = { ...info, engine };
    // one line: what was chosen and why the faster ones were passed over
    const why =
      wanted === 'auto'
        ? passed.length
          ? `; passed over ${passed.join('; ')}`
          : '; the first choice'
        : '; as asked (STARPO_BACKEND or the run config)';
    log(`tensor backend: ${info.name} (${info.device})${why}`);
    return current;
  }
  throw new Error(`tensor backend "${wanted}" is not available on this machine: ${passed.join('; ')}`);
}

/**
 * STARPO_MATMUL=tfjs keeps the backend's own kernels throughout; otherwise (default `blas`) the cpu and
 * wasm backends run matMul and attention on OpenBLAS when the optional addon is built, and wasm's
 * Identity shares memory instead of copying, and its Slice and GatherV2 copy within the heap. Returns
 * which kernels ended up doing the products.
 */
function cpuEngine(name: 'wasm' | 'cpu', log: (msg: string) => void): Engine {
  const wanted: MatmulEngine = trainerSettings().STARPO_MATMUL;
  if (wanted === 'tfjs') return 'tfjs';
  if (name === 'wasm') {
    installSharedIdentity();
    installHeapKernels();
  }
  const r = installBlasMatMul(name);
  if (!r.ok) log(`matMul stays on tfjs (the slow engine): ${r.why}`);
  return r.ok ? 'openblas' : 'tfjs';
}

/** ` (<core> kernels)`: which OpenBLAS kernels ran, so a log says why two machines' weights differ. */
function blasCore(): string {
  const core = loadSgemm().addon?.coreName?.(); // an addon built before coreName existed has none
  return core ? ` (${core} kernels)` : '';
}

export function backendInfo(): BackendInfo | null {
  return current;
}

export { tf };
