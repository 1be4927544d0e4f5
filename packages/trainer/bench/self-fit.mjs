// Self-fit probe: can the actor update raise success on the puzzles it was trained on, and what does
// that do to other puzzles? From the same base, three arms on the same 16 Sokoban puzzles × 8 rollouts:
//   none   — no update (the baseline for the two rollouts after),
//   psr    — advantage +1 on every reply token of the successful rollouts (positive-sample reinforcement),
//   random — advantage ±1 (a coin per rollout) on a quarter of the rollouts: an update of the same size
//            with no signal,
// each for EPOCHS actor steps (old log-probs refreshed after each, so the clip never binds), then a new
// rollout of the same puzzles and one of 16 fresh puzzles, with the same sampler seeds in every arm.
// Usage: node packages/trainer/bench/self-fit.mjs BASE_DIR [EPOCHS=8] [LR=2e-4]
import { buildRunConfig } from '@starpo/contracts';
import { Rng } from '@starpo/envs';
import { initBackend } from '../dist/backend.js';
import { PolicyResponder } from '../dist/rollout/responder.js';
import { rollout } from '../dist/rollout/rollout.js';
import { AdamW } from '../dist/train/optimizer.js';
import { scoreSamples, toSample } from '../dist/train/batch.js';
import { rolloutSettings } from '../dist/rollout/settings.js';
import { loadBaseModel } from '../dist/bases/load.js';
import { actorStep } from '../dist/train/update.js';

const [base, epochs = '8', lr = '2e-4'] = process.argv.slice(2);
if (!base) throw new Error('usage: self-fit.mjs BASE_DIR [EPOCHS] [LR]');
await initBackend('wasm', () => {});
const c = buildRunConfig('quick-cpu', { env: { name: 'sokoban' }, model: { base }, ppo: { actorLr: Number(lr) } });
const SCORE_TOKENS = 4096;

const play = (bundle, seedBase, samplerSeed) => {
  const responder = new PolicyResponder(bundle.model, bundle.tokenizer, {
    maxNewTokens: c.rollout.maxNewTokens,
    temperature: c.rollout.temperature,
    topP: 1,
    batchSize: 128,
  });
  const seeds = Array.from({ length: 16 }, (_, g) => seedBase + g);
  const req = { env: 'sokoban', envConfig: c.env.config, seeds, groupSize: 8, split: 'train', settings: rolloutSettings(c) };
  return rollout(req, responder, bundle.tokenizer, new Rng(samplerSeed));
};
const success = (ts) => ts.filter((t) => t.success).length / ts.length;
// pooled over all executed actions (the loop's action_is_effective averages per turn instead)
const effective = (ts) => {
  let e = 0;
  let n = 0;
  for (const u of ts.flatMap((t) => t.turns)) {
    e += u.effectiveCount;
    n += u.executed.length;
  }
  return e / Math.max(1, n);
};
const fmt = (ts) => `success ${(100 * success(ts)).toFixed(1)}%, effective ${(100 * effective(ts)).toFixed(1)}% of executed actions`;

const start = loadBaseModel(base, 0);
const trained = await play(start, 20000, 1);
console.log(`trained-on puzzles before any update: ${fmt(trained)} (${trained.length} rollouts)`);

for (const arm of ['none', 'psr', 'random']) {
  const bundle = loadBaseModel(base, 0);
  const coin = new Rng(7);
  const chosen = arm === 'psr' ? trained.filter((t) => t.success) : arm === 'random' ? trained.filter((_, i) => i % 4 === 0) : [];
  const samples = chosen.map(toSample);
  const signs = samples.map(() => (arm === 'random' && coin.float() < 0.5 ? -1 : 1));
  samples.forEach((s, i) => (s.advantages = s.returns = s.mask.map((m) => signs[i] * m)));
  const opt = new AdamW(
    { lr: Number(lr), betas: c.ppo.betas, weightDecay: 0, maxGradNorm: c.ppo.gradClip },
    bundle.model.trainableVariables(),
  );
  for (let e = 0; samples.length > 0 && e < Number(epochs); e++) {
    const s = await scoreSamples(bundle.model, samples, bundle.tokenizer.padId, SCORE_TOKENS, c.rollout.temperature);
    samples.forEach((x, i) => (x.oldLogProbs = s.logProbs[i]));
    await actorStep(bundle.model, opt, samples, c, bundle.tokenizer.padId, SCORE_TOKENS);
  }
  const again = await play(bundle, 20000, 2);
  const fresh = await play(bundle, 30000, 3);
  console.log(
    `${arm.padEnd(6)} (${samples.length} rollouts, ${samples.length ? epochs : 0} steps at lr ${lr}): trained-on puzzles ${fmt(again)} | fresh puzzles ${fmt(fresh)}`,
  );
}
