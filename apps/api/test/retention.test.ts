import { insertTrajectories, storeCheckpointFile, upsertMetrics, type TurnInput } from '@starpo/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

const turn = (index: number): TurnInput => ({
  index,
  observation: `obs ${index}`,
  snapshot: null,
  rawReply: '<think>t</think><answer>Up</answer>',
  think: 't',
  answer: 'Up',
  parsedActions: ['Up'],
  validActions: ['Up'],
  formatOk: true,
  effectiveCount: 1,
  reward: 0,
  done: index === 2,
  promptTokens: 10,
  responseTokens: 5,
  meanLogProb: null,
  meanEntropy: null,
});

describe("pruning a run's checkpoints and raw trajectories by policy", () => {
  let t: TestApi;
  let owner: TestUser;
  let member: TestUser;
  let runId: string;
  const as = (u: TestUser) => ({
    post: (path: string, body?: object) => t.http.post(path).set('Authorization', u.auth).send(body),
    get: (path: string) => t.http.get(path).set('Authorization', u.auth),
  });
  const count = async (sql: string) => (await t.db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${sql}`, runId))[0]!.n;

  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
    member = await joinAs(t, owner, 'member', 'member@lab.test');
    runId = (
      await as(owner)
        .post('/api/runs', { preset: 'quick-cpu', config: { env: { name: 'sokoban' } } })
        .expect(201)
    ).body.id;
    // 10 steps: metrics each step, validation success peaking at step 4, a complete checkpoint every 2 steps
    for (let step = 1; step <= 10; step++) {
      await upsertMetrics(t.db, runId, step, { 'train/success': step / 10, 'val/success': step === 4 ? 0.9 : step / 20 });
      await insertTrajectories(
        t.db,
        runId,
        (['train', 'val'] as const).map((split, group) => ({
          step,
          split,
          group,
          indexInGroup: 0,
          seed: step,
          env: 'sokoban',
          success: false,
          totalReward: 0,
          numActions: 3,
          keptByFilter: null,
          flags: [],
          turns: [turn(0), turn(1), turn(2)],
        })),
      );
      if (step % 2 === 0) {
        await storeCheckpointFile(t.db, runId, step, 'policy.safetensors', new Uint8Array(1000).fill(step), 'safetensors');
        await storeCheckpointFile(t.db, runId, step, 'state.json', new TextEncoder().encode(`{"step":${step}}`), 'json');
      }
    }
    // a step being written (no state.json yet) is newer than every complete one and must stay
    await storeCheckpointFile(t.db, runId, 11, 'policy.safetensors', new Uint8Array(500), 'safetensors');
    // a teammate's verdict keeps its trajectory whatever the policy
    const judged = await t.db.trajectory.findFirstOrThrow({ where: { runId, step: 1, split: 'train' } });
    await t.db.claimVerdict.create({
      data: {
        teamId: owner.teamId,
        trajectoryId: judged.id,
        turn: 0,
        spanStart: 0,
        spanEnd: 1,
        flagged: true,
        verdict: 'right',
        userId: owner.userId,
      },
    });
  });
  afterAll(() => t.close());

  it('a dry run counts what would go and deletes nothing', async () => {
    const before = await count(`checkpoints WHERE run_id = $1::uuid`);
    const res = await as(owner)
      .post(`/api/runs/${runId}/prune`, { checkpoints: { keepLast: 2, keepBest: 1 }, trajectories: { keepLastSteps: 3 }, dryRun: true })
      .expect(200);
    expect(res.body).toEqual({
      dryRun: true,
      checkpoints: { keptSteps: [10, 8, 4], deletedSteps: [2, 6], files: 4, bytes: 2000 + 2 * '{"step":2}'.length },
      trajectories: { deleted: 6, turns: 18, keptFromStep: 8 },
    });
    expect(await count(`checkpoints WHERE run_id = $1::uuid`)).toBe(before);
  });

  it('keeps the newest and the best checkpoints, recent trajectories, validation and judged ones, and every metric', async () => {
    const metricsBefore = await count(`metric_points WHERE run_id = $1::uuid`);
    const res = await as(owner)
      .post(`/api/runs/${runId}/prune`, { checkpoints: { keepLast: 2, keepBest: 1 }, trajectories: { keepLastSteps: 3 } })
      .expect(200);
    expect(res.body.checkpoints.deletedSteps).toEqual([2, 6]);
    const steps = (await as(owner).get(`/api/runs/${runId}/checkpoints`).expect(200)).body.map((c: { step: number }) => c.step);
    expect([...new Set(steps)]).toEqual([11, 10, 8, 4]);
    expect(
      await count(`checkpoint_chunks c JOIN checkpoints k ON k.id = c.checkpoint_id WHERE k.run_id = $1::uuid AND k.step IN (2, 6)`),
    ).toBe(0);
    // train steps 8–10 stay, with step 1's judged trajectory and all ten validation ones
    const kept = await t.db.trajectory.findMany({
      where: { runId },
      select: { step: true, split: true },
      orderBy: [{ split: 'asc' }, { step: 'asc' }],
    });
    expect(kept.filter((k) => k.split === 'train').map((k) => k.step)).toEqual([1, 8, 9, 10]);
    expect(kept.filter((k) => k.split === 'val')).toHaveLength(10);
    expect(await count(`turns u JOIN trajectories j ON j.id = u.trajectory_id WHERE j.run_id = $1::uuid`)).toBe(14 * 3);
    expect(await count(`metric_points WHERE run_id = $1::uuid`)).toBe(metricsBefore);
    // the run still resumes and exports from its newest complete step
    await as(owner).get(`/api/runs/${runId}/checkpoints/archive`).expect(200);
    // pruning again with the same policy finds nothing more
    const again = await as(owner).post(`/api/runs/${runId}/prune`, {
      checkpoints: { keepLast: 2, keepBest: 1 },
      trajectories: { keepLastSteps: 3 },
    });
    expect(again.body).toMatchObject({ checkpoints: { deletedSteps: [] }, trajectories: { deleted: 0 } });
  });

  it('refuses a bad policy, a run of someone else and an unknown run', async () => {
    const bad = await as(owner)
      .post(`/api/runs/${runId}/prune`, { checkpoints: { keepLast: 0 } })
      .expect(400);
    expect(bad.body.details[0].path).toBe('checkpoints.keepLast');
    expect((await as(owner).post(`/api/runs/${runId}/prune`, {}).expect(400)).body.details[0].path).toBe('checkpoints');
    await as(owner)
      .post(`/api/runs/${runId}/prune`, { trajectories: { keepLastSteps: 1, extra: 1 } })
      .expect(400);
    await as(member)
      .post(`/api/runs/${runId}/prune`, { trajectories: { keepLastSteps: 1 } })
      .expect(403);
    await as(owner)
      .post(`/api/runs/00000000-0000-4000-8000-000000000000/prune`, { trajectories: { keepLastSteps: 1 } })
      .expect(404);
  });
});
