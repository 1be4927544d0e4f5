import { Rng } from '@starpo/envs';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { rolloutSettingsFor } from '../src/pretrain/pretrain.js';
import { vocabularyCorpus } from '../src/pretrain/corpus.js';
import { TeacherResponder } from '../src/pretrain/teacher.js';
import type { Reply, ReplyRequest, Responder } from '../src/rollout/responder.js';
import { rollout, type RolloutRequest } from '../src/rollout/rollout.js';
import { diagnoseBatch } from '../src/train/diagnose.js';
import { CompactTokenizer, buildCompactVocab } from '../src/tokenizer/compact-tokenizer.js';

const tokenizer = new CompactTokenizer(buildCompactVocab(vocabularyCorpus(40)));
const request = (env: string): RolloutRequest => ({
  env,
  envConfig: {},
  seeds: [1, 2, 3],
  groupSize: 4,
  split: 'train',
  settings: rolloutSettingsFor(env),
});

/** The teacher's think with every number shifted: confident and wrong. */
class LyingTeacher implements Responder {
  private readonly teacher = new TeacherResponder({ maxActionsPerTurn: 3, randomActionShare: 0 });
  async respond(requests: ReplyRequest[], rng: Rng): Promise<Reply[]> {
    return requests.map((r) => {
      const text = this.teacher.replyText(r, rng);
      const [think, rest] = text.split('</think>');
      return { text: `${think!.replace(/\((\d+), (\d+)\)/g, (_, a, b) => `(${Number(a) + 1}, ${b})`)}</think>${rest}`, tokenCount: 0 };
    });
  }
}

/** One fixed think whatever the state, and an answer that ignores it. */
class TemplateResponder implements Responder {
  async respond(requests: ReplyRequest[]): Promise<Reply[]> {
    return requests.map(() => ({ text: 'I will move up.</think><answer>Left</answer>', tokenCount: 0 }));
  }
}

describe('reasoning diagnostics on rollouts', () => {
  beforeAll(async () => {
    await initBackend('cpu');
  });

  for (const env of ['sokoban', 'frozenlake']) {
    it(`${env}: the scripted teacher's grounded thinks raise no flag but reasoning-free ones`, async () => {
      const trajs = await rollout(
        request(env),
        new TeacherResponder({ maxActionsPerTurn: 3, randomActionShare: 0.3 }),
        tokenizer,
        new Rng(7),
      );
      const m = diagnoseBatch(trajs, 'train');
      expect(m['train/diag/hallucination_rate']).toBe(0);
      expect(m['train/diag/think_answer_mismatch_rate']).toBe(0);
      expect(m['train/diag/claims_per_turn']).toBeGreaterThan(2);
      for (const t of trajs) {
        expect(t.flags).not.toContain('hallucinated');
        for (const turn of t.turns) {
          expect(
            turn.diagnostics!.claims.every((c) => c.verdict === 'supported'),
            JSON.stringify(turn.diagnostics!.claims),
          ).toBe(true);
          expect(turn.diagnostics!.thinkAnswer).toBe('consistent');
        }
      }
    });
  }

  it('flags shifted coordinates as hallucinated, with the truth as evidence', async () => {
    const trajs = await rollout(request('sokoban'), new LyingTeacher(), tokenizer, new Rng(7));
    const m = diagnoseBatch(trajs, 'train');
    expect(m['train/diag/hallucination_rate']).toBe(1);
    expect(trajs.every((t) => t.flags!.includes('hallucinated'))).toBe(true);
    const claim = trajs[0]!.turns[0]!.diagnostics!.claims.find((c) => c.pattern === 'player position')!;
    const [r, c] = trajs[0]!.turns[0]!.snapshot.env === 'sokoban' ? trajs[0]!.turns[0]!.snapshot.player : [0, 0];
    expect(claim).toMatchObject({ verdict: 'contradicted', evidence: `player is at (${r}, ${c}), not (${r + 1}, ${c})` });
  });

  it('flags a template think and an answer that contradicts it', async () => {
    const trajs = await rollout(
      { ...request('frozenlake'), settings: { ...rolloutSettingsFor('frozenlake'), maxTurns: 2 } },
      new TemplateResponder(),
      tokenizer,
      new Rng(1),
    );
    const m = diagnoseBatch(trajs, 'train');
    expect(m['train/diag/think_answer_mismatch_rate']).toBe(1);
    expect(m['train/diag/distinct_think_ratio']).toBeLessThan(0.5);
    expect(m['train/diag/template_rate']).toBe(1);
    expect(trajs.every((t) => t.flags!.includes('think_answer_mismatch') && t.flags!.includes('template_collapse'))).toBe(true);
  });
});
