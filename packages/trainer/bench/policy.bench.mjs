// Policy throughput on the current backend (STARPO_BACKEND to force one, STARPO_MATMUL=tfjs for the
// backend's own matMul): prompt processing (a full forward over the prompts), generation (the
// token-by-token decode loop alone, timed inside generate) and update (forward, backward and AdamW)
// tokens/s for each size, with the FLOP/s each implies.
// SIZES=nano,tiny,small (default; qwen2.5-0.5b is the Qwen2.5-0.5B shape with random weights),
// BATCH (32), PROMPT (256), NEW (32), UPDATE_BATCH (8), REPS (2).
import * as tf from '@tensorflow/tfjs';
import { Rng } from '@starpo/envs';
import { initBackend } from '../dist/backend.js';
import { countParams, forwardFlopsPerToken, qwen25HalfBConfig, starpoTinyConfig } from '../dist/model/config.js';
import { Qwen2Model } from '../dist/model/qwen2.js';
import { disposePrefix, generateCached } from '../dist/policy/generate.js';
import { packSequences, tokenLogProbs } from '../dist/policy/score.js';
import { AdamW, accumulateGradients } from '../dist/train/optimizer.js';
import { vocabularyCorpus } from '../dist/pretrain/corpus.js';
import { CompactTokenizer, buildCompactVocab } from '../dist/tokenizer/compact-tokenizer.js';
import { machineLine } from './machine.mjs';

const info = await initBackend('auto', (m) => console.log(m));
console.log(machineLine(`${info.name} (${info.device})`));
const tokenizer = new CompactTokenizer(buildCompactVocab(vocabularyCorpus(40)));
const env = (k, d) => Number(process.env[k] ?? d);
const PROMPT = env('PROMPT', 256);
const BATCH = env('BATCH', 32);
const NEW = env('NEW', 32);
const UPDATE_BATCH = env('UPDATE_BATCH', 8);
const REPS = env('REPS', 2);
const SIZES = (process.env.SIZES ?? 'nano,tiny,small').split(',');
const configFor = (size) => {
  if (size === 'qwen2.5-0.5b') return qwen25HalfBConfig();
  if (!['nano', 'tiny', 'small'].includes(size)) throw new Error(`unknown size ${size} (nano, tiny, small, qwen2.5-0.5b)`);
  return starpoTinyConfig(size, tokenizer.vocabSize);
};

async function timed(fn, reps = REPS) {
  await fn(); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  return (performance.now() - t0) / 1000 / reps;
}

const fmt = (x) =>
  x >= 1e9
    ? `${(x / 1e9).toFixed(1)} G`
    : x >= 1e6
      ? `${(x / 1e6).toFixed(1)} M`
      : x >= 1e3
        ? `${(x / 1e3).toFixed(1)} k`
        : `${Math.round(x)} `;
const rows = [];
for (const size of SIZES) {
  const config = configFor(size);
  const model = Qwen2Model.init(config);
  // a model wider than the tokenizer samples ids it cannot spell: fold them back for the stop-string checks
  const tok = {
    padId: tokenizer.padId,
    eosId: tokenizer.eosId,
    vocabSize: config.vocab_size,
    decode: (ids, o) =>
      tokenizer.decode(
        ids.map((i) => i % tokenizer.vocabSize),
        o,
      ),
  };
  const rng = new Rng(0);
  const prompts = Array.from({ length: BATCH }, () => Array.from({ length: PROMPT }, () => 7 + rng.int(0, tokenizer.vocabSize - 8)));
  const packed = packSequences(
    prompts.map((ids) => ({ ids, lossMask: ids.map(() => 1) })),
    0,
  );
  const prefill = await timed(async () => {
    const l = model.forward(packed.ids, packed.mask);
    await l.data();
    l.dispose();
  });
  // generation: the decode loop's own clock (prefill excluded), warm-up first
  let decodeS = 0;
  let decodeTokens = 0;
  for (let r = 0; r <= REPS; r++) {
    const { next, timing } = await generateCached(model, tok, prompts, { maxNewTokens: NEW, temperature: 1 }, new Rng(r));
    disposePrefix(next);
    if (r === 0) continue;
    decodeS += timing.decodeS;
    decodeTokens += timing.decodeTokens;
  }
  const vars = model.trainableVariables();
  const opt = new AdamW({ lr: 1e-4, betas: [0.9, 0.999], weightDecay: 0.01, maxGradNorm: 1 }, vars);
  const up = packSequences(
    prompts.slice(0, UPDATE_BATCH).map((ids) => ({ ids, lossMask: ids.map(() => 1) })),
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
  const promptTok = (BATCH * PROMPT) / prefill;
  const genTok = decodeTokens / decodeS;
  const updateTok = (UPDATE_BATCH * PROMPT) / update;
  rows.push({
    size,
    params: fmt(countParams(config)).trim(),
    'prompt tok/s': Math.round(promptTok),
    'prompt FLOP/s': `${fmt(promptTok * forwardFlopsPerToken(config, PROMPT / 2))}`,
    'generate tok/s': Math.round(genTok),
    'generate FLOP/s': `${fmt(genTok * forwardFlopsPerToken(config, PROMPT + NEW / 2))}`,
    'update tok/s': Math.round(updateTok),
    'update FLOP/s': `${fmt(updateTok * 3 * forwardFlopsPerToken(config, PROMPT / 2))}`,
  });
  tf.dispose([packed.ids, packed.mask, packed.targetMask, up.ids, up.mask, up.targetMask]);
  opt.dispose();
  model.dispose();
}
console.log(
  `prompts ${BATCH}×${PROMPT} tokens (one forward), ${NEW} new tokens each (decode loop alone, ${REPS} reps), updates on ${UPDATE_BATCH}×${PROMPT}; FLOP/s = 2·weights + attention per token, ×3 for an update`,
);
console.table(rows);
