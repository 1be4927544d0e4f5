import { createDb, insertTrajectories, type Db } from '@starpo/db';
import { freshDatabase, type TestDatabase } from '@starpo/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rediagnoseRun } from '../src/rediagnose.js';

describe('re-computing a run’s reasoning diagnostics', () => {
  let t: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    t = await freshDatabase();
    db = createDb(t.url);
  });
  afterAll(async () => {
    await db.$disconnect();
    await t.drop();
  });

  it('fills in turn diagnostics, trajectory flags and per-step metrics from stored rows', async () => {
    const team = await db.team.create({ data: { name: 'lab' } });
    const run = await db.run.create({
      data: { teamId: team.id, name: 'old', config: {}, environment: 'sokoban', algorithm: 'ppo', totalSteps: 1, status: 'succeeded' },
    });
    // Sokoban seed 3: player (4, 2), the box right above it at (3, 2); then one step left
    const fixed = ['######', '#____#', '#__#O#', '#____#', '#____#', '######'];
    const before = { env: 'sokoban', fixed, boxes: [[3, 2]], player: [4, 2], steps: 0, done: false, success: false };
    const after = { ...before, player: [4, 1], steps: 1 };
    const turn = (think: string, answer: string) => ({
      index: 0,
      observation: 'grid',
      snapshot: before,
      rawReply: `<think>${think}</think><answer>${answer}</answer>`,
      think,
      answer,
      parsedActions: [answer],
      validActions: [answer],
      formatOk: true,
      effectiveCount: 1,
      reward: -0.1,
      done: false,
      promptTokens: 0,
      responseTokens: 0,
      meanLogProb: null,
      meanEntropy: null,
    });
    const traj = (i: number, think: string, answer: string) => ({
      step: 1,
      split: 'train' as const,
      group: 0,
      indexInGroup: i,
      seed: 3,
      env: 'sokoban',
      success: false,
      totalReward: -0.1,
      numActions: 1,
      keptByFilter: null,
      finalSnapshot: after,
      turns: [turn(think, answer)],
    });
    await insertTrajectories(db, run.id, [
      traj(0, 'Box at (3, 2). Plan: Left.', 'Left'),
      traj(1, 'Box at (4, 2). Plan: Left.', 'Left'),
      traj(2, 'Player at (4, 2). So I go up.', 'Left'),
    ]);
    const batches: number[] = [];
    const r = await rediagnoseRun(db, run.id, (done) => batches.push(done));
    expect(r).toEqual({ batches: 1, trajectories: 3, hallucinated: 1 });
    expect(batches).toEqual([1]);

    const rows = await db.trajectory.findMany({ where: { runId: run.id }, orderBy: { indexInGroup: 'asc' }, include: { turns: true } });
    expect(rows.map((x) => [x.hallucinated, x.flags])).toEqual([
      [false, []],
      [true, ['hallucinated']],
      [false, ['think_answer_mismatch']],
    ]);
    const d = rows[1]!.turns[0]!.diagnostics as { claims: { verdict: string; evidence: string }[] };
    expect(d.claims[0]).toMatchObject({ verdict: 'contradicted', evidence: 'box is at (3, 2), not (4, 2)' });
    // the index that serves "hallucinated trajectories of run X between steps a and b"
    expect(await db.trajectory.count({ where: { runId: run.id, hallucinated: true, step: { gte: 1, lte: 1 } } })).toBe(1);

    const points = await db.metricPoint.findMany({ where: { runId: run.id, key: { startsWith: 'train/diag/' } } });
    const byKey = Object.fromEntries(points.map((p) => [p.key, p.value]));
    expect(byKey['train/diag/hallucination_rate']).toBeCloseTo(1 / 3);
    expect(byKey['train/diag/think_answer_mismatch_rate']).toBeCloseTo(1 / 3);
  });
});
