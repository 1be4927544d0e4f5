import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { loadHfModel } from '../src/model/hf.js';
import { tokenLogProbs } from '../src/policy/score.js';
import { HfTokenizer } from '../src/tokenizer/hf-tokenizer.js';
import { GOLDEN_DIR, loadGolden, maxAbsDiff } from './fixtures.js';

const golden = loadGolden();
const fp32Dir = path.join(GOLDEN_DIR, 'qwen2-tiny');
const bf16Dir = path.join(GOLDEN_DIR, 'qwen2-tiny-bf16');

describe('Hugging Face tokenizer (qwen2-tiny fixture)', () => {
  const tok = HfTokenizer.fromDir(fp32Dir);

  it('reproduces the reference encodings and round-trips the text', () => {
    for (const e of golden.encodings) {
      expect(tok.encode(e.text), e.text).toEqual(e.ids);
      expect(tok.decode(e.ids)).toBe(e.text);
    }
  });

  it('renders the chat template exactly and encodes it to the reference ids', () => {
    const text = tok.applyChatTemplate(golden.chat.messages as never, { addGenerationPrompt: true });
    expect(text).toBe(golden.chat.text);
    expect(tok.encode(text)).toEqual(golden.chat.ids);
  });

  it('round-trips arbitrary UTF-8', () => {
    for (const s of [
      '√ box on target ✓',
      '日本語のテキスト',
      'emoji 🧊🕳️ and \t tabs\n\nnewlines',
      '<think>a</think><answer>Up || Down</answer>',
    ]) {
      expect(tok.decode(tok.encode(s))).toBe(s);
    }
  });
});

for (const backend of ['cpu', 'wasm'] as const) {
  describe(`Qwen2 forward vs transformers, ${backend} backend`, () => {
    afterAll(() => tf.disposeVariables());

    it('matches logits, next-token log-probs and entropy to 1e-4 (float32)', async () => {
      await initBackend(backend);
      expect(tf.getBackend()).toBe(backend);
      const model = loadHfModel(fp32Dir);
      const ids = tf.tensor2d(golden.input_ids, undefined, 'int32');
      const mask = tf.onesLike(ids);
      const logits = model.forward(ids, mask);
      expect(logits.shape).toEqual([2, 12, 450]);
      const got = (await logits.array()) as number[][][];
      for (let b = 0; b < 2; b++) for (let t = 0; t < 12; t++) expect(maxAbsDiff(got[b]![t]!, golden.logits[b]![t]!)).toBeLessThan(1e-4);

      const logp = tf.logSoftmax(logits);
      const lp = (await logp.array()) as number[][][];
      const probs = (await tf.exp(logp).array()) as number[][][];
      for (let b = 0; b < 2; b++) {
        for (let t = 0; t < 11; t++) {
          expect(Math.abs(lp[b]![t]![golden.input_ids[b]![t + 1]!]! - golden.target_logprobs[b]![t]!)).toBeLessThan(1e-4);
          const h = -probs[b]![t]!.reduce((s, p, i) => s + p * lp[b]![t]![i]!, 0);
          expect(Math.abs(h - golden.entropy[b]![t]!)).toBeLessThan(1e-4);
        }
      }
      tf.dispose([ids, mask, logits, logp]);
      model.dispose();
    });

    it('scores tokens at temperature 1 as transformers does, and at temperature T as log_softmax(logits / T)', async () => {
      await initBackend(backend);
      const model = loadHfModel(fp32Dir);
      const ids = tf.tensor2d(golden.input_ids, undefined, 'int32');
      const mask = tf.onesLike(ids) as tf.Tensor2D;
      for (const temperature of [1, 0.5]) {
        const r = tokenLogProbs(model, ids, mask, { temperature });
        const lp = (await r.logProbs.array()) as number[][];
        const ent = (await r.entropy!.array()) as number[][];
        for (let b = 0; b < 2; b++) {
          for (let t = 0; t < 11; t++) {
            const scaled = golden.logits[b]![t]!.map((x) => x / temperature);
            const max = Math.max(...scaled);
            const logZ = max + Math.log(scaled.reduce((s, x) => s + Math.exp(x - max), 0));
            const want = scaled[golden.input_ids[b]![t + 1]!]! - logZ;
            const wantH = -scaled.reduce((s, x) => s + Math.exp(x - logZ) * (x - logZ), 0);
            if (temperature === 1) expect(Math.abs(want - golden.target_logprobs[b]![t]!)).toBeLessThan(1e-4);
            expect(Math.abs(lp[b]![t]! - want)).toBeLessThan(1e-4);
            expect(Math.abs(ent[b]![t]! - wantH)).toBeLessThan(1e-4);
          }
        }
        tf.dispose([r.logProbs, r.entropy!]);
      }
      tf.dispose([ids, mask]);
      model.dispose();
    });

    it('left padding with an attention mask gives the unpadded logits', async () => {
      await initBackend(backend);
      const model = loadHfModel(fp32Dir);
      const ids = tf.tensor2d(golden.left_padded.input_ids, undefined, 'int32');
      const mask = tf.tensor2d(golden.left_padded.attention_mask, undefined, 'int32');
      const logits = (await model.forward(ids, mask).array()) as number[][][];
      const pad = golden.left_padded.attention_mask[0]!.indexOf(1);
      golden.left_padded.logits_of_real_tokens.forEach((row, i) => expect(maxAbsDiff(logits[0]![pad + i]!, row)).toBeLessThan(1e-4));
      tf.dispose([ids, mask]);
      model.dispose();
    });

    it('bf16 weights upcast to float32 match transformers’ upcast logits', async () => {
      await initBackend(backend);
      const model = loadHfModel(bf16Dir);
      const ids = tf.tensor2d(golden.input_ids, undefined, 'int32');
      const logits = (await model.forward(ids, tf.onesLike(ids)).array()) as number[][][];
      for (let b = 0; b < 2; b++)
        for (let t = 0; t < 12; t++) expect(maxAbsDiff(logits[b]![t]!, golden.bf16_upcast_logits[b]![t]!)).toBeLessThan(1e-4);
      ids.dispose();
      model.dispose();
    });
  });
}
