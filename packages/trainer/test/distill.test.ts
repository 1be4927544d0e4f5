import { buildRunConfig } from '@starpo/contracts';
import { Rng, createEnv, solveSokoban, type SokobanSnapshot } from '@starpo/envs';
import { describe, expect, it } from 'vitest';
import { TeacherResponder } from '../src/pretrain/teacher.js';
import { vocabularyCorpus } from '../src/pretrain/corpus.js';
import { rollout } from '../src/rollout/rollout.js';
import { rolloutSettings } from '../src/rollout/settings.js';
import { distillExamples, shares } from '../src/train/distill.js';
import { CompactTokenizer, buildCompactVocab } from '../src/tokenizer/compact-tokenizer.js';

const tokenizer = new CompactTokenizer(buildCompactVocab(vocabularyCorpus(40)));

describe('on-policy solver distillation examples', () => {
  const c = buildRunConfig('quick-cpu', { env: { name: 'sokoban' }, algorithm: { solverDistill: { coef: 1, turns: 12 } } });
  const settings = rolloutSettings(c);

  it("each example is the prompt the policy saw at a visited state, then the clean teacher's reply for that state", async () => {
    // a teacher that plays half its moves at random stands in for a policy that strays from the solver
    const noisy = new TeacherResponder({ maxActionsPerTurn: 5, randomActionShare: 0.5 });
    const req = { env: 'sokoban', envConfig: c.env.config, seeds: [5, 6, 7, 8], groupSize: 2, split: 'train' as const, settings };
    const trajs = await rollout(req, noisy, tokenizer, new Rng(2));
    const turns = trajs.reduce((a, t) => a + t.turns.length, 0);
    const { examples, agreement } = distillExamples(trajs, c, settings, tokenizer, new Rng(9));
    expect(examples).toHaveLength(Math.min(12, turns));
    expect(agreement).toBeGreaterThanOrEqual(0);
    expect(agreement).toBeLessThanOrEqual(1);

    for (const ex of examples) {
      expect(ex.lossMask).toHaveLength(ex.ids.length);
      const from = ex.lossMask.indexOf(1);
      const prompt = ex.ids.slice(0, from);
      // the prompt is, token for token, one a turn of the batch was sampled from
      const owner = trajs
        .flatMap((t) => t.turns.map((turn, k) => ({ t, turn, k })))
        .find(({ t, k }) => {
          const [a] = t.turnSpans[k]!;
          const start = t.segmentStarts.filter((s) => s <= a).at(-1)!;
          return a - start === prompt.length && t.ids.slice(start, a).every((id, i) => id === prompt[i]);
        });
      expect(owner).toBeDefined();
      expect(ex.lossMask.slice(from).every((m) => m === 1)).toBe(true);
      // the target is the teacher's reply: its first move is the solver's at that state
      const target = tokenizer.decode(ex.ids.slice(from));
      expect(target.endsWith('<|im_end|>')).toBe(true);
      const env = createEnv('sokoban', c.env.config);
      env.restore(owner!.turn.snapshot);
      const solverMove = solveSokoban(owner!.turn.snapshot as SokobanSnapshot, { maxStates: 200_000 })?.[0];
      if (solverMove) expect(/<answer>(\w+)/.exec(target)?.[1]).toBe(solverMove);
      expect(target).toContain(`Player at (${(owner!.turn.snapshot as SokobanSnapshot).player.join(', ')})`);
    }
  });

  it('shares split the examples into nearly equal consecutive parts that cover them once', () => {
    const parts = shares([1, 2, 3, 4, 5, 6, 7], 3);
    expect(parts.flat()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(parts.map((p) => p.length).sort()).toEqual([2, 2, 3]);
  });
});
