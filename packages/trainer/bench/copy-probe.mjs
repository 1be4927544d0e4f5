// Copy probe: mean loss (nats) of base models on 32 noise-free teacher dialogues, by kind of token: the
// answer's actions (a copy of the plan in the think) and the digits of "Player at (r, c)". A base whose
// attention never learned to copy scores ln 4 = 1.39 on the actions. Usage: node packages/trainer/bench/copy-probe.mjs DIR…
import { Rng } from '@starpo/envs';
import { initBackend } from '../dist/backend.js';
import { loadModelDir } from '../dist/model/storage.js';
import { rollout } from '../dist/rollout/rollout.js';
import { TeacherResponder } from '../dist/pretrain/teacher.js';
import { rolloutSettingsFor } from '../dist/pretrain/pretrain.js';
import { scoreSamples } from '../dist/train/batch.js';
await initBackend('wasm', () => {});
for (const dir of process.argv.slice(2)) {
  const { model, tokenizer, meta } = loadModelDir(dir);
  const envConfig = meta.pretrain?.envConfig ?? {};
  const teacher = new TeacherResponder({ maxActionsPerTurn: 5, randomActionShare: 0 });
  const seeds = Array.from({ length: 32 }, (_, i) => 123 + i);
  const trajs = await rollout(
    { env: 'sokoban', envConfig, seeds, groupSize: 1, split: 'val', settings: rolloutSettingsFor('sokoban') },
    teacher,
    tokenizer,
    new Rng(1),
  );
  const { logProbs } = await scoreSamples(model, trajs, tokenizer.padId, 4096, 1);
  const acc = { answer: [], player: [], all: [] };
  trajs.forEach((t, k) => {
    const toks = t.ids.map((id) => tokenizer.decode([id]));
    let inAnswer = false,
      playerDigits = 0;
    for (let i = 1; i < t.ids.length; i++) {
      const tok = toks[i];
      if (toks[i - 1] === '<answer>') inAnswer = true;
      if (tok === '</answer>') inAnswer = false;
      if (toks[i - 2] === 'Player' && toks[i - 1] === ' at') playerDigits = 4; // " (", r, ",", " c"
      const nll = -logProbs[k][i - 1];
      if (!t.lossMask[i]) continue;
      acc.all.push(nll);
      if (inAnswer && /[A-Z][a-z]+/.test(tok)) acc.answer.push(nll);
      if (playerDigits > 0) {
        if (/\d/.test(tok)) acc.player.push(nll);
        playerDigits--;
      }
    }
  });
  const m = (xs) => (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3);
  console.log(
    `${dir}: init ${model.config.initializer_range ?? 0.02}, all reply tokens ${m(acc.all)}, answer actions ${m(acc.answer)} (n=${acc.answer.length}), player digits ${m(acc.player)} (n=${acc.player.length})`,
  );
  model.dispose();
}
