import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { Rng } from '@starpo/envs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { uninstallBlasMatMul } from '../src/model/blas-kernel.js';
import { loadHfModel } from '../src/model/hf.js';
import { generate, generateCached, disposePrefix } from '../src/policy/generate.js';
import { HfTokenizer } from '../src/tokenizer/hf-tokenizer.js';
import { GOLDEN_DIR, loadGolden } from './fixtures.js';

const golden = loadGolden();
const dir = path.join(GOLDEN_DIR, 'qwen2-tiny');

// every backend with the native kernels where the addon is built, and the cpu backend's own kernels
const setups = [
  ['cpu', 'native'],
  ['wasm', 'native'],
  ['cpu', 'tfjs'],
] as const;

/** The backend, on its own kernels when asked (a test that calls initBackend again gets the native ones back). */
async function start(backend: 'cpu' | 'wasm', kernels: 'native' | 'tfjs'): Promise<void> {
  await initBackend(backend);
  if (kernels === 'tfjs') uninstallBlasMatMul(backend);
}

for (const [backend, kernels] of setups) {
  describe(`generation with a KV cache (${backend}, ${kernels} kernels)`, () => {
    it('greedy decoding reproduces transformers’ continuation', async () => {
      await start(backend, kernels);
      const model = loadHfModel(dir);
      const tok = HfTokenizer.fromDir(dir);
      const [g] = await generate(model, tok, [golden.chat.ids], { maxNewTokens: 10, temperature: 0 }, new Rng(0));
      expect(g!.ids).toEqual(golden.chat.greedy_continuation_ids.slice(0, g!.ids.length));
      expect(g!.ids.length === 10 || g!.stopReason === 'eos').toBe(true);
      model.dispose();
    });

    it('a left-padded batch decodes each row as it would alone', async () => {
      await start(backend, kernels);
      const model = loadHfModel(dir);
      const tok = HfTokenizer.fromDir(dir);
      const prompts = [golden.chat.ids, golden.input_ids[0]!.slice(0, 5), golden.input_ids[1]!];
      const together = await generate(model, tok, prompts, { maxNewTokens: 8, temperature: 0 }, new Rng(0));
      for (let i = 0; i < prompts.length; i++) {
        const [alone] = await generate(model, tok, [prompts[i]!], { maxNewTokens: 8, temperature: 0 }, new Rng(0));
        expect(together[i]!.ids).toEqual(alone!.ids);
        together[i]!.logProbs.forEach((lp, t) => expect(Math.abs(lp - alone!.logProbs[t]!)).toBeLessThan(1e-4));
      }
      model.dispose();
    });

    it('a next turn started from the kept cache decodes as a fresh prefill of the whole conversation does', async () => {
      await start(backend, kernels);
      const model = loadHfModel(dir);
      const tok = HfTokenizer.fromDir(dir);
      const before = tf.memory().numTensors;
      const first = [golden.chat.ids, golden.input_ids[1]!, golden.input_ids[0]!.slice(0, 5)];
      const turn1 = await generateCached(model, tok, first, { maxNewTokens: 6, temperature: 0 }, new Rng(0));
      // the next prompts: each conversation so far with its reply re-tokenised differently at the end
      // (as a canonical rewrite does) plus a new user turn; the third conversation has ended
      const second = [0, 1].map((b) => [
        ...first[b]!,
        ...turn1.generations[b]!.ids.slice(0, 3),
        11,
        12,
        13,
        ...golden.input_ids[0]!.slice(0, 4),
      ]);
      const cached = await generateCached(model, tok, second, { maxNewTokens: 6, temperature: 0 }, new Rng(0), {
        prefix: turn1.next!,
        rows: [0, 1],
      });
      disposePrefix(turn1.next);
      const fresh = await generate(model, tok, second, { maxNewTokens: 6, temperature: 0 }, new Rng(0));
      for (let b = 0; b < 2; b++) {
        expect(cached.generations[b]!.ids).toEqual(fresh[b]!.ids);
        cached.generations[b]!.logProbs.forEach((lp, t) => expect(Math.abs(lp - fresh[b]!.logProbs[t]!)).toBeLessThan(1e-4));
        // what the cache holds: the prompt and every generated token it was fed
        expect(cached.next!.held[b]).toEqual([...second[b]!, ...cached.generations[b]!.ids.slice(0, -1)]);
      }
      disposePrefix(cached.next);
      expect(tf.memory().numTensors).toBe(before);
      model.dispose();
    });

    it('seeded sampling repeats exactly, and leaks no tensors', async () => {
      await start(backend, kernels);
      const model = loadHfModel(dir);
      const tok = HfTokenizer.fromDir(dir);
      const opts = { maxNewTokens: 12, temperature: 1, topP: 0.9 };
      const a = await generate(model, tok, [golden.chat.ids, golden.chat.ids], opts, new Rng(42));
      const before = tf.memory().numTensors;
      const b = await generate(model, tok, [golden.chat.ids, golden.chat.ids], opts, new Rng(42));
      await generate(model, tok, [golden.chat.ids], opts, new Rng(7));
      expect(tf.memory().numTensors).toBe(before);
      expect(b.map((g) => g.ids)).toEqual(a.map((g) => g.ids));
      for (const g of a) {
        expect(g.logProbs.every((x) => x <= 0)).toBe(true);
        expect(g.entropies.every((x) => x >= 0)).toBe(true);
      }
      model.dispose();
    });
  });
}
