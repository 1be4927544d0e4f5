import * as tf from '@tensorflow/tfjs';
import { loadSgemm, size, storageOf, type NativeKernels, type Storage, type TensorInfo } from './native-addon.js';
import { registerNativeOps } from './native-ops.js';

// tf.matMul on the cpu and wasm backends through an OpenBLAS sgemm (native/kernels.c), when that optional
// addon is built: tfjs-backend-wasm reaches 2–12 GFLOP/s on the update's shapes, OpenBLAS several
// times more (docs/results/engine.md). The tfjs kernel stays registered underneath as the fallback
// for what the addon does not handle (non-float32, uneven batch broadcasting).

export type MatmulEngine = 'tfjs' | 'blas';

interface MatmulAttrs {
  transposeA: boolean;
  transposeB: boolean;
}
/**
 * a [...batchA, M, K] × b [...batchB, K, N] (or transposed) when each operand's batch is either the
 * full output batch or a single matrix; null for what the fallback should do.
 */
function sgemmMatMul(s: NativeKernels, store: Storage, a: TensorInfo, b: TensorInfo, attrs: MatmulAttrs): TensorInfo | null {
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
const ATTENTION = 'StarpoAttention';
const ATTENTION_GRAD = 'StarpoAttentionGrad';
const KV_WRITE = 'StarpoKvWrite';
const KV_GATHER = 'StarpoKvGather';

/**
 * [B, nH, nKv, L, T, hd] of q [B, nH, L, hd] and k [B, nKv, T, hd]; with the key mask [B, T] of a
 * decoding cache that keeps room (k [B, nKv, C, hd], C > T), [B, nH, nKv, L, T, hd, C]. Listed
 * queries (q [L, nH, hd], see fusedAttention) count L across the batch.
 */
function attentionDims(q: TensorInfo, k: TensorInfo, keys: TensorInfo | undefined, listed: boolean): number[] {
  const t = keys ? keys.shape[1]! : k.shape[2]!;
  const [l, hd] = listed ? [q.shape[0]!, q.shape[2]!] : [q.shape[2]!, q.shape[3]!];
  const dims = [k.shape[0]!, q.shape[1]!, k.shape[1]!, l, t, hd];
  return t === k.shape[2] ? dims : [...dims, k.shape[2]!];
}

interface RefCounted {
  incRef(dataId: unknown): void;
}

/** The attention kernels of the addon, registered once per backend (they stay; only attention.ts calls them, when blasActive()). */
function registerAttention(s: NativeKernels, backendName: 'cpu' | 'wasm'): void {
  if (tf.getKernel(ATTENTION, backendName)) return;
  tf.registerKernel({
    kernelName: ATTENTION,
    backendName,
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { q, k, v, keys, pos, start } = inputs as Record<string, TensorInfo>;
      const store = storageOf(backendName, backend);
      const dims = attentionDims(q!, k!, keys!, pos !== undefined);
      const out = store.alloc(q!.shape);
      // without a backward pass the probabilities stay inside the kernel
      const probsShape = pos ? [dims[1]!, dims[3]!, dims[4]!] : [dims[0]!, dims[1]!, dims[3]!, dims[4]!];
      const probs = (attrs as { keep: boolean }).keep ? store.alloc(probsShape) : null;
      // allocations may move the wasm heap: take every view after the last one
      s.attentionForward(
        store.read(q!),
        store.read(k!),
        store.read(v!),
        store.read(keys!),
        store.read(out.info),
        probs ? store.read(probs.info) : null,
        dims,
        ...(pos ? [store.read(pos), store.read(start!)] : []),
      );
      return probs ? [out.info, probs.info] : [out.info];
    },
  });
  tf.registerKernel({
    kernelName: ATTENTION_GRAD,
    backendName,
    kernelFunc: ({ inputs, backend }) => {
      const { q, k, v, keys, probs, out, dy, pos, start } = inputs as Record<string, TensorInfo>;
      const store = storageOf(backendName, backend);
      const dq = store.alloc(q!.shape);
      const dk = store.alloc(k!.shape);
      const dv = store.alloc(v!.shape);
      const r = (t: TensorInfo) => store.read(t);
      s.attentionBackward(
        r(q!),
        r(k!),
        r(v!),
        r(keys!),
        r(probs!),
        r(out!),
        r(dy!),
        r(dq.info),
        r(dk.info),
        r(dv.info),
        attentionDims(q!, k!, undefined, pos !== undefined),
        ...(pos ? [r(pos), r(start!)] : []),
      );
      return [dq.info, dk.info, dv.info];
    },
  });
  tf.registerKernel({
    kernelName: KV_WRITE,
    backendName,
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { cache, x } = inputs as Record<string, TensorInfo>;
      const [batch, heads, capacity, hd] = cache!.shape as [number, number, number, number];
      const { at } = attrs as unknown as { at: number };
      const len = x!.shape[2]!;
      if (x!.shape[0] !== batch || x!.shape[1] !== heads || x!.shape[3] !== hd)
        throw new Error(`writing [${x!.shape}] into a cache of [${cache!.shape}]`);
      if (at + len > capacity) throw new Error(`writing ${len} positions at ${at} into a cache of ${capacity}`);
      const store = storageOf(backendName, backend);
      const into = store.read(cache!);
      const from = store.read(x!);
      for (let r = 0; r < batch * heads; r++) into.set(from.subarray(r * len * hd, (r + 1) * len * hd), (r * capacity + at) * hd);
      // the output is the cache itself, one more reference to its memory
      (backend as RefCounted).incRef(cache!.dataId);
      return { dataId: cache!.dataId, shape: cache!.shape, dtype: cache!.dtype };
    },
  });
  tf.registerKernel({
    kernelName: KV_GATHER,
    backendName,
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { cache } = inputs as Record<string, TensorInfo>;
      const [, heads, held, hd] = cache!.shape as [number, number, number, number];
      const { from, batch, capacity } = attrs as unknown as { from: Int32Array; batch: number; capacity: number };
      const width = from.length / batch;
      if (!Number.isInteger(width) || width > capacity)
        throw new Error(`gathering ${from.length} positions into ${batch} rows of ${capacity}`);
      const store = storageOf(backendName, backend);
      const out = store.alloc([batch, heads, capacity, hd]);
      const src = store.read(cache!);
      // positions with no source (and the room) are 0: a masked key's score must still be a number
      out.data.fill(0);
      for (let b = 0; b < batch; b++) {
        for (let j = 0; j < width;) {
          const f = from[b * width + j]!;
          // a run of positions that follow each other in one row of the cache is one copy a head
          let n = 1;
          while (j + n < width && from[b * width + j + n] === f + n && (f + n) % held !== 0) n++;
          if (f >= 0) {
            const [row, pos] = [Math.floor(f / held), f % held];
            for (let h = 0; h < heads; h++) {
              const at = ((row * heads + h) * held + pos) * hd;
              out.data.set(src.subarray(at, at + n * hd), ((b * heads + h) * capacity + j) * hd);
            }
          }
          j += n;
        }
      }
      return out.info;
    },
  });
}

/**
 * Queries listed by position (see fusedAttention): `pos` [L] the last key each may see, `start` [B + 1]
 * where each sequence's run of queries begins in the list; float32, as the addon reads them.
 */
export interface ListedQueries {
  pos: tf.Tensor1D;
  start: tf.Tensor1D;
}

/**
 * Causal softmax(q·kᵀ)·v over the real keys in one kernel call each way (q [B, nH, L, hd] already
 * scaled, k and v [B, nKv, T, hd], `keys` [B, T] float 1 for a real key; query i sits at position
 * T − L + i). The mask is applied inside the kernel, so the [B, L, T] mask tensor is never built and
 * the masked products are skipped; the probabilities are kept for the backward pass.
 * With `listed`, q is [L, nH, hd]: any positions of any sequences (those whose outputs a pass needs),
 * each sequence's in a run ordered by position; the output is [L, nH, hd] too.
 */
export function fusedAttention(q: tf.Tensor, k: tf.Tensor4D, v: tf.Tensor4D, keys: tf.Tensor2D, listed?: ListedQueries): tf.Tensor {
  const lists: tf.NamedTensorMap = listed ? { pos: listed.pos, start: listed.start } : {};
  // no gradient recorded (generation, scoring): nothing to keep for a backward pass
  if (!(tf.engine() as unknown as { isTapeOn(): boolean }).isTapeOn())
    return (tf.engine().runKernel(ATTENTION, { q, k, v, keys, ...lists }, { keep: false }) as tf.Tensor[])[0]!;
  if (k.shape[2] !== keys.shape[1]) throw new Error('a cache with room to grow in place is for decoding, not for a gradient');
  const f = tf.customGrad(((qq: tf.Tensor, kk: tf.Tensor, vv: tf.Tensor, save: tf.GradSaveFunc) => {
    const [out, probs] = tf.engine().runKernel(ATTENTION, { q: qq, k: kk, v: vv, keys, ...lists }, { keep: true }) as tf.Tensor[];
    // the key mask and lists too: the forward pass's scope disposes them before the backward pass runs
    save([qq, kk, vv, keys, probs!, out!, ...(listed ? [listed.pos, listed.start] : [])]);
    return {
      value: out!,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sq, sk, sv, sm, sp, so, pos, start] = saved;
        const inputs = { q: sq!, k: sk!, v: sv!, keys: sm!, probs: sp!, out: so!, dy, ...(pos ? { pos, start: start! } : {}) };
        return tf.engine().runKernel(ATTENTION_GRAD, inputs) as tf.Tensor[];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(q, k, v);
}

/**
 * `cache` [B, H, C, hd] with `x` [B, H, L, hd] written at positions at … at + L − 1, in place: no copy
 * of the cache for each decoded token. Every handle of `cache` sees the write, so only a decoding cache
 * that nothing else reads may take it (`withRoom` makes one).
 */
export function writeKvInPlace(cache: tf.Tensor4D, x: tf.Tensor4D, at: number): tf.Tensor4D {
  return tf.engine().runKernel(KV_WRITE, { cache, x }, { at }) as tf.Tensor4D;
}

/**
 * A new cache [batch, H, capacity, hd] whose row b holds, at position j, position `from[b·width + j]`
 * of `cache` [B, H, C, hd] counted flat over B·C (−1: none, left 0), one copy per position and head:
 * the rows a next turn continues, compacted, with room for what it will write in place.
 */
export function gatherKv(cache: tf.Tensor4D, from: Int32Array, batch: number, capacity: number): tf.Tensor4D {
  return tf.engine().runKernel(KV_GATHER, { cache }, { from, batch, capacity } as unknown as tf.NamedAttrMap) as tf.Tensor4D;
}

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
      const store = storageOf(backendName, args.backend);
      return sgemmMatMul(s, store, a, b, args.attrs as unknown as MatmulAttrs) ?? original.kernelFunc(args);
    },
  });
  registerAttention(s, backendName);
  registerNativeOps(s, backendName);
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
