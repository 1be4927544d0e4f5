// Policy throughput on the current backend (STARPO_BACKEND to force one): prompt processing,
// KV-cache generation and update tokens/s for each starpo-tiny size, measured side by side.
import * as tf from '@tensorflow/tfjs';
import { Rng } from '@starpo/envs';
import { initBackend } from '../dist/backend.js';
import { countParams, starpoTinyConfig, STARPO_TINY_SIZES } from '../dist/model/config.js';
import { Qwen2Model } from '../dist/model/qwen2.js';
import { generate } from '../dist/policy/generate.js';
import { packSequences, tokenLogProbs } from '../dist/policy/score.js';
import { AdamW, accumulateGradients } from '../dist/train/optimizer.js';
import { vocabularyCorpus } from '../dist/pretrain/corpus.js';
import { CompactTokenizer, buildCompactVocab } from '../dist/tokenizer/compact-tokenizer.js';

const info = await initBackend('auto', (m) => console.log(m));
const tokenizer = new CompactTokenizer(buildCompactVocab(vocabularyCorpus(40)));
const PROMPT = 256;
const BATCH = Number(process.env.BENCH_BATCH ?? 32);
const NEW = 32;
const rng = new Rng(0);
const prompt = () => Array.from({ length: PROMPT }, () => 7 + rng.int(0, tokenizer.vocabSize - 8));

async function timed(fn, reps = 2) {
  await fn(); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  return (performance.now() - t0) / 1000 / reps;
}

const rows = [];
for (const size of STARPO_TINY_SIZES) {
  const model = Qwen2Model.init(starpoTinyConfig(size, tokenizer.vocabSize));
  const prompts = Array.from({ length: BATCH }, prompt);
  const packed = packSequences(
    prompts.map((ids) => ({ ids, lossMask: ids.map(() => 1) })),
    0,
  );
  const prefill = await timed(async () => {
    const l = model.forward(packed.ids, packed.mask);
    await l.data();
    l.dispose();
  });
  // generation: a 1-token-prompt-free measure, decode time minus the prefill it includes
  const gen = await timed(() => generate(model, tokenizer, prompts, { maxNewTokens: NEW, temperature: 1 }, new Rng(1)), 1);
  const vars = model.trainableVariables();
  const opt = new AdamW({ lr: 1e-4, betas: [0.9, 0.999], weightDecay: 0.01, maxGradNorm: 1 }, vars);
  const updateBatch = 8;
  const up = packSequences(
    prompts.slice(0, updateBatch).map((ids) => ({ ids, lossMask: ids.map(() => 1) })),
    0,
  );
  const update = await timed(async () => {
    const grads = new Map();
    await accumulateGradients(
      () => tf.tidy(() => tokenLogProbs(model, up.ids, up.mask, { entropy: false }).logProbs.mean().neg()),
      vars,
      grads,
    );
    await opt.step(grads);
  });
  rows.push({
    size,
    params: countParams(model.config),
    'prompt tok/s': Math.round((BATCH * PROMPT) / prefill),
    'generate tok/s': Math.round((BATCH * NEW) / Math.max(1e-6, gen - prefill)),
    'update tok/s': Math.round((updateBatch * PROMPT) / update),
  });
  tf.dispose([packed.ids, packed.mask, packed.targetMask, up.ids, up.mask, up.targetMask]);
  opt.dispose();
  model.dispose();
}
console.log(`backend ${info.name} (${info.device}); prompts ${BATCH}×${PROMPT} tokens, ${NEW} new tokens each, updates on 8×${PROMPT}`);
console.table(rows);
