// Multi-turn rollout time with and without keeping each conversation's KV cache between turns,
// measured side by side on the same seeds: one quick-cpu training rollout (8 groups × 8) of Sokoban.
// BASE=<model folder> (default .data/bases/sokoban-coord-tiny, else a random starpo-tiny/tiny).
import { existsSync } from 'node:fs';
import { buildRunConfig } from '@starpo/contracts';
import { Rng } from '@starpo/envs';
import { initBackend } from '../dist/backend.js';
import { PolicyResponder } from '../dist/rollout/responder.js';
import { rollout } from '../dist/rollout/rollout.js';
import { loadBaseModel } from '../dist/bases/load.js';
import { rolloutSettings } from '../dist/rollout/settings.js';

const info = await initBackend('auto', (m) => console.log(m));
const base =
  process.env.BASE ??
  (existsSync('.data/bases/sokoban-coord-tiny/model.safetensors') ? '.data/bases/sokoban-coord-tiny' : 'starpo-tiny/tiny');
const config = buildRunConfig('quick-cpu', { env: { name: 'sokoban' }, model: { base } });
const { model, tokenizer } = loadBaseModel(base, 1);
const seeds = Array.from({ length: config.rollout.envGroups }, (_, g) => 1000 + g);
const req = {
  env: 'sokoban',
  envConfig: config.env.config,
  seeds,
  groupSize: config.rollout.groupSize,
  split: 'train',
  settings: rolloutSettings(config),
};

async function run(reuseCache) {
  const responder = new PolicyResponder(model, tokenizer, {
    maxNewTokens: config.rollout.maxNewTokens,
    temperature: config.rollout.temperature,
    topP: config.rollout.topP,
    batchSize: 128,
    reuseCache,
  });
  const t0 = performance.now();
  const trajs = await rollout(req, responder, tokenizer, new Rng(42));
  return { seconds: (performance.now() - t0) / 1000, trajs };
}

console.log(`rollout of ${seeds.length} groups × ${req.groupSize} on ${info.backend}, base ${base}`);
const full = await run(false);
const cached = await run(true);
const turns = (r) => r.trajs.reduce((a, t) => a + t.turns.length, 0);
const prompt = (r) => r.trajs.reduce((a, t) => a + t.turns.reduce((b, u) => b + u.promptTokens, 0), 0);
const same = cached.trajs.filter(
  (t, i) => t.turns.map((u) => u.rawReply).join() === full.trajs[i].turns.map((u) => u.rawReply).join(),
).length;
console.log(
  `re-prefill every turn:  ${full.seconds.toFixed(1)} s  (${turns(full)} turns, ${prompt(full).toLocaleString('en-US')} prompt tokens)`,
);
console.log(`keep the KV cache:      ${cached.seconds.toFixed(1)} s  (${turns(cached)} turns)`);
console.log(
  `speed-up ${(full.seconds / cached.seconds).toFixed(2)}×; ${same}/${full.trajs.length} trajectories identical (sampling may diverge on float rounding)`,
);
