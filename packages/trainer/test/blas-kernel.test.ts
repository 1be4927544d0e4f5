import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { attention, attentionMask } from '../src/model/attention.js';
import { blasActive, fusedAttention, gatherKv, installBlasMatMul, uninstallBlasMatMul, writeKvInPlace } from '../src/model/blas-kernel.js';
import { loadSgemm } from '../src/model/native-addon.js';
import { nativeRmsNorm, nativeSwiglu } from '../src/model/native-ops.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { disposeCache, Qwen2Model } from '../src/model/qwen2.js';
import { takeRows } from '../src/model/rows.js';
import { tokenLogProbs } from '../src/policy/score.js';
import { maxAbsDiff } from './fixtures.js';

const built = loadSgemm();
if (!built.addon) console.warn(`OpenBLAS matMul tests skipped: ${built.why}`);

/** [aShape, bShape, transposeA, transposeB]: plain, transposed, batched, broadcast, degenerate. */
const CASES: [number[], number[], boolean, boolean][] = [
  [[7, 5], [5, 3], false, false],
  [[5, 7], [5, 3], true, false],
  [[7, 5], [3, 5], false, true],
  [[5, 7], [3, 5], true, true],
  [[4, 6, 5], [4, 5, 2], false, false],
  [[4, 6, 5], [5, 2], false, false],
  [[6, 5], [2, 3, 2, 5], false, true],
  [[2, 3, 6, 5], [1, 1, 5, 4], false, false],
  [[1, 1], [1, 1], false, false],
  [[3, 0], [0, 4], false, false],
];

/** Every matMul of `fn` on the tfjs kernel and on OpenBLAS, in one process. */
async function bothKernels<T>(backend: 'cpu' | 'wasm', fn: () => Promise<T>): Promise<[T, T]> {
  uninstallBlasMatMul(backend);
  const reference = await fn();
  expect(installBlasMatMul(backend).ok).toBe(true);
  expect(blasActive()).toBe(true);
  return [reference, await fn()];
}

for (const backend of ['cpu', 'wasm'] as const) {
  describe.skipIf(!built.addon)(`OpenBLAS matMul, ${backend} backend`, { timeout: 60_000 }, () => {
    it('gives the tfjs kernel’s products on plain, transposed, batched and broadcast shapes', async () => {
      await initBackend(backend);
      for (const [as, bs, ta, tb] of CASES) {
        const a = tf.randomNormal(as, 0, 1, 'float32', 1);
        const b = tf.randomNormal(bs, 0, 1, 'float32', 2);
        const [ref, fast] = await bothKernels(backend, async () => {
          const c = tf.matMul(a, b, ta, tb);
          return { shape: c.shape, data: Array.from(await c.data()) };
        });
        expect(fast.shape, `${as}·${bs} ${ta} ${tb}`).toEqual(ref.shape);
        expect(maxAbsDiff(fast.data, ref.data), `${as}·${bs} ${ta} ${tb}`).toBeLessThan(1e-4);
      }
    });

    it('fused attention gives the tfjs path’s output and gradients (grouped heads, left padding, a cache, several query blocks)', async () => {
      await initBackend(backend);
      // [batch, nH, nKv, len, past, hd, padding of the second row]; the kernel takes queries in blocks of 64
      const shapes = [
        [2, 6, 2, 5, 4, 8, 3],
        [2, 4, 2, 70, 0, 8, 5],
        [3, 4, 2, 1, 9, 8, 2],
        // decode-sized calls: a long cache, a finished row (its own position masked), and queries that see no real key yet
        [3, 4, 2, 1, 300, 24, 7],
        [3, 4, 2, 1, 4, 8, 2],
        [2, 4, 2, 3, 2, 8, 4],
      ];
      for (const [batch, nH, nKv, len, past, hd, pad] of shapes as [number, number, number, number, number, number, number][]) {
        const total = past + len;
        const rows = [Array(total).fill(1), [...Array(pad).fill(0), ...Array(total - pad).fill(1)]];
        // a third row with a hole: a decode step that skipped a finished row's token
        if (batch > 2) rows.push(Array.from({ length: total }, (_, j) => (j === 4 ? 0 : 1)));
        const keyMask = tf.tensor2d(rows, [batch, total], 'float32');
        // queries that see no real key (left padding) are free to differ, and so, in a decode step, is a
        // finished row's query at its own masked position (nothing reads it): compare the others
        const read = (r: number[], at: number) => r.slice(0, at + 1).some(Boolean) && (len > 1 || r[at] === 1);
        const seen = tf.tensor4d(
          rows.flatMap((r) => Array.from({ length: nH * len }, (_, x) => (read(r, past + (x % len)) ? 1 : 0))),
          [batch, nH, len, 1],
        );
        const q = tf.randomNormal([batch, nH, len, hd], 0, 1, 'float32', 1) as tf.Tensor4D;
        const k = tf.randomNormal([batch, nKv, total, hd], 0, 1, 'float32', 2) as tf.Tensor4D;
        const v = tf.randomNormal([batch, nKv, total, hd], 0, 1, 'float32', 3) as tf.Tensor4D;
        const weights = tf.randomNormal([batch, nH, len, hd], 0, 1, 'float32', 4).mul(seen);
        const att = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) =>
          attention({ q: a as tf.Tensor4D, k: b as tf.Tensor4D, v: c as tf.Tensor4D, mask: attentionMask(keyMask, len, nH / nKv) });
        const f = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => att(a, b, c).mul(weights).sum();
        const [ref, fast] = await bothKernels(backend, async () => {
          const out = Array.from(await att(q, k, v).mul(seen).data());
          const grads = await Promise.all(
            tf
              .grads(f)([q, k, v])
              .map(async (g) => Array.from(await g.data())),
          );
          return { out, grads };
        });
        const what = `[${batch}, ${nH}, ${nKv}, ${len}, ${past}, ${hd}]`;
        expect(maxAbsDiff(fast.out, ref.out), what).toBeLessThan(1e-5);
        for (const [i, g] of fast.grads.entries()) expect(maxAbsDiff(g, ref.grads[i]!), `${what} d${'qkv'[i]}`).toBeLessThan(1e-4);
      }
    });

    it('listed queries get the outputs and gradients the same queries get in a whole sequence', async () => {
      await initBackend(backend);
      expect(installBlasMatMul(backend).ok).toBe(true);
      const [batch, nH, nKv, len, hd] = [3, 4, 2, 150, 8];
      // row 0 lists 90 positions (more than one block of 64), row 1 is left-padded by 20 and lists a
      // few, row 2 lists none
      const lists = [Array.from({ length: 90 }, (_, i) => 5 + i + (i > 40 ? 30 : 0)), [20, 21, 77, 149], []];
      const keys = tf.tensor2d(
        [1, 0, 1].flatMap((full) => Array.from({ length: len }, (_, j) => (full || j >= 20 ? 1 : 0))),
        [batch, len],
      );
      const at = lists.flatMap((l, b) => l.map((j) => b * len + j));
      const start = [0, ...lists.map((_, b) => lists.slice(0, b + 1).flat().length)];
      const listed = { pos: tf.tensor1d(lists.flat()), start: tf.tensor1d(start) };
      const index = tf.tensor1d(at, 'int32');
      const q = tf.randomNormal([batch, nH, len, hd], 0, 1, 'float32', 1);
      const k = tf.randomNormal([batch, nKv, len, hd], 0, 1, 'float32', 2) as tf.Tensor4D;
      const v = tf.randomNormal([batch, nKv, len, hd], 0, 1, 'float32', 3) as tf.Tensor4D;
      const w = tf.randomNormal([at.length, nH, hd], 0, 1, 'float32', 4);
      // [B, nH, L, hd] → the listed rows [N, nH, hd]
      const pick = (x: tf.Tensor) => takeRows(x.transpose([0, 2, 1, 3]).reshape([batch * len, nH, hd]), index);
      const whole = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => pick(fusedAttention(a, b as tf.Tensor4D, c as tf.Tensor4D, keys));
      const only = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => fusedAttention(a, b as tf.Tensor4D, c as tf.Tensor4D, keys, listed);
      const ql = pick(q);
      expect(maxAbsDiff(only(ql, k, v).dataSync(), whole(q, k, v).dataSync())).toBeLessThan(1e-5);
      const [dq, dk, dv] = tf.grads((a, b, c) => whole(a, b, c).mul(w).sum())([q, k, v]);
      const [dql, dkl, dvl] = tf.grads((a, b, c) => only(a, b, c).mul(w).sum())([ql, k, v]);
      expect(maxAbsDiff(dql!.dataSync(), pick(dq!).dataSync())).toBeLessThan(1e-4);
      expect(maxAbsDiff(dkl!.dataSync(), dk!.dataSync())).toBeLessThan(1e-4);
      expect(maxAbsDiff(dvl!.dataSync(), dv!.dataSync())).toBeLessThan(1e-4);
      // a list out of order, or past the keys, is refused
      const bad = { pos: tf.tensor1d([...lists.flat().slice(0, -1), 1]), start: listed.start };
      expect(() => fusedAttention(ql, k, v, keys, bad)).toThrow(/wrong arguments or sizes/);
      const past = { pos: tf.tensor1d([...lists.flat().slice(0, -1), len]), start: listed.start };
      expect(() => fusedAttention(ql, k, v, keys, past)).toThrow(/wrong arguments or sizes/);
    });

    it('gives a starpo-tiny model the same logits and gradients as the tfjs path', async () => {
      await initBackend(backend);
      const model = Qwen2Model.init(starpoTinyConfig('nano', 50), { seed: 3 });
      const ids = tf.tensor2d(
        [
          [5, 9, 11, 4, 7, 8, 20, 3],
          [0, 0, 6, 2, 14, 9, 30, 1],
        ],
        undefined,
        'int32',
      );
      const mask = tf.tensor2d(
        [
          [1, 1, 1, 1, 1, 1, 1, 1],
          [0, 0, 1, 1, 1, 1, 1, 1],
        ],
        undefined,
        'int32',
      );
      const vars = model.trainableVariables();
      // left padding sees no key: its positions are free to differ, and carry no loss
      const real = mask.toFloat().expandDims(2);
      const [ref, fast] = await bothKernels(backend, async () => {
        const { value, grads } = tf.variableGrads(() => model.forward(ids, mask).logSoftmax().mul(real).mean().neg() as tf.Scalar, vars);
        const out = {
          loss: (await value.data())[0]!,
          logits: Array.from(await model.forward(ids, mask).mul(real).data()),
          grads: await Promise.all(vars.map(async (v) => Array.from(await grads[v.name]!.data()))),
        };
        tf.dispose([value, ...Object.values(grads)]);
        return out;
      });
      expect(Math.abs(fast.loss - ref.loss)).toBeLessThan(1e-5);
      expect(maxAbsDiff(fast.logits, ref.logits)).toBeLessThan(1e-4);
      for (const [i, g] of fast.grads.entries()) expect(maxAbsDiff(g, ref.grads[i]!), vars[i]!.name).toBeLessThan(1e-4);
      model.dispose();
    });

    it('runs the last layer on the positions asked for as a whole pass does, with and without a cache, on both kernel sets', async () => {
      await initBackend(backend);
      const model = Qwen2Model.init(starpoTinyConfig('nano', 50), { seed: 6 });
      const rows = [
        [5, 9, 11, 4, 7, 8, 20, 3],
        [0, 0, 6, 2, 14, 9, 30, 1],
      ];
      const ids = tf.tensor2d(rows, undefined, 'int32');
      const mask = tf.tensor2d(
        rows.map((r, b) => r.map((_, j) => (b === 1 && j < 2 ? 0 : 1))),
        undefined,
        'int32',
      );
      const listed = Int32Array.from([1, 4, 7, 10, 11, 15]);
      const [ref, fast] = await bothKernels(backend, async () => {
        const read = async (t: tf.Tensor) => Array.from(await t.data());
        const whole = model.hidden(ids, mask).hidden;
        // a prompt of 5 tokens, then 3 more continuing its cache
        const first = model.hidden(ids.slice([0, 0], [2, 5]), mask.slice([0, 0], [2, 5]), { returnCache: true });
        const next = { cache: first.cache!, at: 'last' as const };
        const out = {
          last: await read(model.hidden(ids, mask, { at: 'last' }).hidden),
          wholeLast: await read(whole.slice([0, 7, 0], [2, 1, -1])),
          listed: await read(model.hidden(ids, mask, { at: listed }).hidden),
          wholeListed: await read(tf.gather(whole.reshape([16, -1]), Array.from(listed))),
          cachedLast: await read(model.hidden(ids.slice([0, 5], [2, 3]), mask.slice([0, 5], [2, 3]), next).hidden),
        };
        disposeCache(first.cache);
        return out;
      });
      for (const r of [ref, fast]) {
        expect(maxAbsDiff(r.last, r.wholeLast)).toBeLessThan(1e-5);
        expect(maxAbsDiff(r.cachedLast, r.wholeLast)).toBeLessThan(1e-5);
        expect(maxAbsDiff(r.listed, r.wholeListed)).toBeLessThan(1e-5);
      }
      // left padding sees no key and is free to differ between the kernel sets; the positions read agree
      expect(maxAbsDiff(fast.last, ref.last)).toBeLessThan(1e-4);
      expect(maxAbsDiff(fast.listed, ref.listed)).toBeLessThan(1e-4);
      model.dispose();
    });

    it('grows the rotation table built with the model when a pass runs past it', async () => {
      await initBackend(backend);
      const config = starpoTinyConfig('nano', 50);
      // the same weights (same seed); one model's table covers 4 positions, the other's 4,096
      const [short, long] = [{ ...config, max_position_embeddings: 4 }, config].map((c) => Qwen2Model.init(c, { seed: 8 }));
      const ids = tf.tensor2d([Array.from({ length: 12 }, (_, j) => 3 + ((j * 7) % 40))], undefined, 'int32');
      const mask = tf.onesLike(ids);
      const [a, b] = [short!, long!].map((m) => Array.from(m.hidden(ids, mask).hidden.dataSync()));
      expect(maxAbsDiff(a!, b!)).toBe(0);
      short!.dispose();
      long!.dispose();
    });

    it('scores tokens (log-probs and entropies at a temperature) and their gradients as the tfjs path does', async () => {
      await initBackend(backend);
      const model = Qwen2Model.init(starpoTinyConfig('nano', 60), { seed: 4 });
      const ids = tf.tensor2d(
        [
          [5, 9, 11, 4, 7, 8, 20, 3, 59],
          [0, 0, 0, 2, 14, 9, 30, 1, 6],
        ],
        undefined,
        'int32',
      );
      const mask = tf.tensor2d(
        [
          [1, 1, 1, 1, 1, 1, 1, 1, 1],
          [0, 0, 0, 1, 1, 1, 1, 1, 1],
        ],
        undefined,
        'int32',
      );
      // weights on the real positions (a padding one sees no key, and may differ), which score a real token
      const scored = mask.slice([0, 1], [2, 8]).mul(mask.slice([0, 0], [2, 8]));
      const wLp = tf.randomNormal([2, 8], 0, 1, 'float32', 8).mul(scored);
      const wEnt = tf.randomNormal([2, 8], 0, 1, 'float32', 9).mul(scored);
      const vars = model.trainableVariables();
      const [ref, fast] = await bothKernels(backend, async () => {
        const score = () => tokenLogProbs(model, ids, mask, { temperature: 0.7 });
        const { logProbs, entropy } = score();
        const { value, grads } = tf.variableGrads(() => {
          const s = score();
          return s.logProbs.mul(wLp).sum().add(s.entropy!.mul(wEnt).sum()) as tf.Scalar;
        }, vars);
        const out = {
          logProbs: Array.from(await logProbs.mul(wLp.notEqual(0)).data()),
          entropy: Array.from(await entropy!.mul(wEnt.notEqual(0)).data()),
          loss: (await value.data())[0]!,
          grads: await Promise.all(vars.map(async (v) => Array.from(await grads[v.name]!.data()))),
        };
        tf.dispose([value, ...Object.values(grads)]);
        return out;
      });
      expect(maxAbsDiff(fast.logProbs, ref.logProbs)).toBeLessThan(1e-4);
      expect(maxAbsDiff(fast.entropy, ref.entropy)).toBeLessThan(1e-4);
      expect(ref.entropy.some((e) => e > 0.1)).toBe(true);
      expect(Math.abs(fast.loss - ref.loss)).toBeLessThan(1e-3);
      for (const [i, g] of fast.grads.entries()) expect(maxAbsDiff(g, ref.grads[i]!), vars[i]!.name).toBeLessThan(1e-4);
      model.dispose();
    });

    it('SwiGLU and its gradients on a tensor large enough that allocating the gradients grows the heap', async () => {
      await initBackend(backend);
      const n = 1 << 24; // 64 MB per tensor: the second gradient's allocation outgrows the heap the first left
      const gate = tf.randomNormal([n], 0, 3, 'float32', 11);
      const up = tf.randomNormal([n], 0, 1, 'float32', 12);
      const [dg, du] = tf.grads((g: tf.Tensor, u: tf.Tensor) => nativeSwiglu(g, u).sum())([gate, up]);
      // spot checks against the formula on a slice (the full tfjs reference would need another 300 MB)
      const idx = tf.tensor1d([0, 7, n / 2, n - 1], 'int32');
      const [g, u] = [await tf.gather(gate, idx).data(), await tf.gather(up, idx).data()];
      const [dgs, dus] = [await tf.gather(dg!, idx).data(), await tf.gather(du!, idx).data()];
      for (let i = 0; i < 4; i++) {
        const sig = 1 / (1 + Math.exp(-g[i]!));
        expect(dus[i]!).toBeCloseTo(g[i]! * sig, 5);
        expect(dgs[i]!).toBeCloseTo(u[i]! * sig * (1 + g[i]! * (1 - sig)), 5);
      }
      tf.dispose([gate, up, dg!, du!, idx]);
    });

    it('writes keys into a cache’s room in place, and refuses a write past the room or of another shape', async () => {
      await initBackend(backend);
      const cache = tf.zeros([2, 1, 4, 3]) as tf.Tensor4D;
      const x = tf.ones([2, 1, 1, 3]) as tf.Tensor4D;
      const written = writeKvInPlace(cache, x, 2);
      // the same memory: the old handle sees the write too
      const expected = [0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0];
      expect(Array.from(await written.data())).toEqual([...expected, ...expected]);
      expect(Array.from(await cache.data())).toEqual([...expected, ...expected]);
      expect(() => writeKvInPlace(cache, x, 4)).toThrow(/into a cache of 4/);
      expect(() => writeKvInPlace(cache, tf.ones([2, 1, 1, 2]) as tf.Tensor4D, 0)).toThrow(/into a cache of \[2,1,4,3\]/);
      tf.dispose([written, cache, x]);
    });

    it('gathers cache positions into compacted rows with room: runs, holes, row ends and padding', async () => {
      await initBackend(backend);
      expect(installBlasMatMul(backend).ok).toBe(true);
      const [rows, heads, held, hd] = [3, 2, 5, 2];
      const cache = tf.tensor4d(
        Array.from({ length: rows * heads * held * hd }, (_, i) => i + 1),
        [rows, heads, held, hd],
      );
      // new row 0: padding, then row 2's positions 1, 2 (a run) and 4 (after a hole); new row 1: row 0's
      // last position then row 1's first (adjacent in the flat count, not a run)
      const from = Int32Array.from([-1, 11, 12, 14, 4, 5, 6, -1]);
      const out = await gatherKv(cache, from, 2, 6).data();
      const data = await cache.data();
      for (let b = 0; b < 2; b++)
        for (let h = 0; h < heads; h++)
          for (let j = 0; j < 6; j++)
            for (let e = 0; e < hd; e++) {
              const f = j < 4 ? from[b * 4 + j]! : -1;
              const want = f < 0 ? 0 : data[((Math.floor(f / held) * heads + h) * held + (f % held)) * hd + e]!;
              expect(out[((b * heads + h) * 6 + j) * hd + e], `row ${b} head ${h} position ${j}`).toBe(want);
            }
      expect(() => gatherKv(cache, from, 2, 3)).toThrow(/into 2 rows of 3/);
      tf.dispose(cache);
    });

    it('RMSNorm and its gradients give the tfjs formula’s, for x and for the weight', async () => {
      await initBackend(backend);
      const x = tf.randomNormal([3, 5, 24], 0, 2, 'float32', 21);
      const w = tf.randomNormal([24], 1, 0.3, 'float32', 22);
      const dy = tf.randomNormal([3, 5, 24], 0, 1, 'float32', 23);
      const eps = 1e-6;
      const reference = (a: tf.Tensor, b: tf.Tensor) => a.mul(a.square().mean(-1, true).add(eps).rsqrt()).mul(b);
      const run = async (norm: (a: tf.Tensor, b: tf.Tensor) => tf.Tensor) => {
        const out = await norm(x, w).data();
        const grads = tf.grads((a: tf.Tensor, b: tf.Tensor) => norm(a, b).mul(dy).sum())([x, w]);
        return [Array.from(out), ...(await Promise.all(grads.map(async (g) => Array.from(await g.data()))))];
      };
      const [ref, fast] = [await run(reference), await run((a, b) => nativeRmsNorm(a, b, eps))];
      ['out', 'dx', 'dw'].forEach((what, i) => expect(maxAbsDiff(fast[i]!, ref[i]!), what).toBeLessThan(1e-4));
      tf.dispose([x, w, dy]);
    });
  });
}

describe.skipIf(!built.addon)('the sgemm addon', () => {
  it('refuses arrays too small for the sizes given, and non-float32 arrays', () => {
    const s = built.addon!;
    const a = new Float32Array(6);
    expect(() => s.sgemm(a, a, new Float32Array(4), 1, 3, 3, 2, false, false, 0, 0)).toThrow(/exceed/);
    expect(() => s.sgemm(a, new Int32Array(6) as unknown as Float32Array, a, 1, 1, 1, 1, false, false, 0, 0)).toThrow(/Float32Array/);
    // attention: a probs array one float short, heads that do not divide into KV groups, more queries than keys
    const dims = [1, 2, 1, 2, 3, 2];
    const [q, kv, keys, probs] = [new Float32Array(8), new Float32Array(6), new Float32Array(3), new Float32Array(11)];
    expect(() => s.attentionForward(q, kv, kv, keys, new Float32Array(8), probs, dims)).toThrow(/wrong arguments or sizes/);
    expect(() => s.attentionForward(q, kv, kv, keys, new Float32Array(8), new Float32Array(12), [1, 3, 2, 2, 3, 2])).toThrow(
      /wrong arguments/,
    );
    expect(() => s.attentionForward(q, kv, kv, keys, new Float32Array(8), new Float32Array(12), [1, 2, 1, 4, 3, 1])).toThrow(
      /wrong arguments/,
    );
    // token scoring: an output one float short, a temperature of 0; SwiGLU over more floats than given
    const logits = new Float32Array(2 * 3 * 4);
    expect(() => s.tokenLogProbs(logits, new Float32Array(4), new Float32Array(7), 2, 3, 4, 1)).toThrow(/wrong arguments or sizes/);
    expect(() => s.tokenLogProbs(logits, new Float32Array(4), new Float32Array(8), 2, 3, 4, 0)).toThrow(/wrong arguments or sizes/);
    expect(() => s.swiglu(a, a, a, 7)).toThrow(/wrong arguments or sizes/);
    // RMSNorm: a weight shorter than a row, an eps of 0
    expect(() => s.rmsNorm(a, new Float32Array(2), a, 2, 3, 1e-6)).toThrow(/wrong arguments or sizes/);
    expect(() => s.rmsNorm(a, new Float32Array(3), a, 2, 3, 0)).toThrow(/wrong arguments or sizes/);
  });

  it('the attention backward pass reads no probability its forward pass left unwritten', () => {
    const s = built.addon!;
    // three query blocks of 64, the second row left-padded (its first 37 queries see no key)
    const [B, nH, nKv, L, hd] = [2, 4, 2, 150, 8];
    const dims = [B, nH, nKv, L, L, hd];
    const values = (n: number, seed: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 7919 + i * 1.618));
    const [q, k, v, dOut] = [
      values(B * nH * L * hd, 1),
      values(B * nKv * L * hd, 2),
      values(B * nKv * L * hd, 3),
      values(B * nH * L * hd, 4),
    ];
    const keys = Float32Array.from({ length: B * L }, (_, j) => (j >= L && j < L + 37 ? 0 : 1));
    // the probabilities' array as the heap hands it out: zeros, or whatever an earlier tensor left there
    const pass = (leftover: number) => {
      const probs = new Float32Array(B * nH * L * L).fill(leftover);
      const out = new Float32Array(q.length);
      const [dq, dk, dv] = [new Float32Array(q.length), new Float32Array(k.length), new Float32Array(v.length)];
      s.attentionForward(q, k, v, keys, out, probs, dims);
      s.attentionBackward(q, k, v, keys, probs, out, dOut, dq, dk, dv, dims);
      return [out, dq, dk, dv].map((a) => Array.from(a));
    };
    const clean = pass(0);
    expect(clean[1]!.some((x) => x !== 0)).toBe(true);
    for (const leftover of [NaN, 1e30]) expect(pass(leftover)).toEqual(clean);
  });
});

// OPENBLAS_CORETYPE's names are x86's (Haswell, Sandybridge…); other CPUs have their own
if (built.addon && process.arch !== 'x64') console.warn(`OpenBLAS kernel-name test skipped: ${process.arch} has no x86 kernels to pin`);
describe.skipIf(!built.addon || process.arch !== 'x64')('OpenBLAS kernels named', () => {
  it('names the kernels it picked, and OPENBLAS_CORETYPE (what npm run bases pins) chooses them', () => {
    expect(built.addon!.coreName()).toMatch(/^\w+$/);
    const addonPath = fileURLToPath(new URL('../native/build/kernels.node', import.meta.url));
    const named = execFileSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(addonPath)}).coreName())`], {
      env: { ...process.env, OPENBLAS_CORETYPE: 'Sandybridge' },
    }).toString();
    expect(named).toBe('Sandybridge');
  });
});
