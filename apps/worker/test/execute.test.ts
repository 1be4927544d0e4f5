import { buildRunConfig } from '@starpo/contracts';
import { claimNextRun, latestCheckpointFiles, type Db } from '@starpo/db';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { executeRun } from '../src/execute.js';
import { registerWorker } from '../src/registration.js';
import { useWorkerDatabase } from './worker-db.js';

describe('worker executes a queued run through the database sink', () => {
  const database = useWorkerDatabase();
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  it('claims the run, trains it, and stores metrics, trajectories with turns, and checkpoints', async () => {
    const config = buildRunConfig('starpo-s-grpo', {
      env: { name: 'bandit' },
      model: { base: 'starpo-tiny/nano' },
      rollout: { envGroups: 2, groupSize: 4, maxNewTokens: 8, validation: { size: 4, every: 2 } },
      ppo: { miniBatchSize: 4, microBatchSize: 4 },
      filter: { ratio: 0.5 },
      training: { steps: 2, checkpointEvery: 1 },
    });
    const team = await db.team.create({ data: { name: 'lab' } });
    const created = await db.run.create({
      data: { teamId: team.id, name: 'w1', config: config as object, environment: 'bandit', algorithm: 'grpo', totalSteps: 2 },
    });
    const worker = await registerWorker(db, { backend: 'wasm', device: 'test', hasGpu: false });
    expect(await claimNextRun(db, worker.id, false)).toMatchObject({ id: created.id, status: 'running', workerId: worker.id });
    expect(await claimNextRun(db, worker.id, false)).toBeNull();

    const run = await db.run.findUniqueOrThrow({ where: { id: created.id } });
    const result = await executeRun(db, run, new AbortController().signal, () => {});
    expect(result.stopReason ?? 'ok').toBe('ok');
    expect(result).toMatchObject({ status: 'succeeded' });
    const after = await db.run.findUniqueOrThrow({ where: { id: created.id } });
    expect(after).toMatchObject({ status: 'succeeded', currentStep: 2 });
    expect(after.finishedAt).not.toBeNull();

    const steps = await db.metricPoint.findMany({ where: { runId: run.id, key: 'train/success' }, orderBy: { step: 'asc' } });
    expect(steps.map((s) => s.step)).toEqual([1, 2]);
    const summary = await db.metricSummary.findUniqueOrThrow({ where: { runId_key: { runId: run.id, key: 'val/success' } } });
    expect(summary.step).toBe(2);

    const trajs = await db.trajectory.findMany({ where: { runId: run.id, split: 'train' }, include: { turns: true } });
    expect(trajs).toHaveLength(16);
    expect(trajs.every((x) => x.turns.length === 1 && x.keptByFilter !== null)).toBe(true);
    expect(trajs[0]!.turns[0]!.stateSnapshot).toMatchObject({ env: 'bandit' });
    // every turn carries its reasoning diagnostics, every trajectory its final state
    expect(trajs.every((x) => x.turns.every((u) => (u.diagnostics as { v?: number } | null)?.v === 1) && x.finalSnapshot !== null)).toBe(
      true,
    );
    const diag = await db.metricPoint.findMany({ where: { runId: run.id, key: 'train/diag/think_answer_mismatch_rate' } });
    expect(diag.map((p) => p.step).sort()).toEqual([1, 2]);
    expect(await db.trajectory.count({ where: { runId: run.id, split: 'val' } })).toBe(4 * 2);

    const ckpt = await latestCheckpointFiles(db, run.id);
    expect(ckpt!.step).toBe(2);
    expect([...ckpt!.files.keys()]).toEqual(expect.arrayContaining(['policy.safetensors', 'state.json', 'actor-optimizer.safetensors']));
  }, 180_000);

  /** A claimed run of a new team whose base model does not exist, so it fails as it starts. */
  async function runThatCannotStart(teamName: string) {
    const team = await db.team.create({ data: { name: teamName } });
    const config = buildRunConfig('starpo-s-grpo', { model: { base: '/no/such/model' } });
    return db.run.create({
      data: {
        teamId: team.id,
        name: 'bad',
        config: config as object,
        environment: 'sokoban',
        algorithm: 'grpo',
        totalSteps: 1,
        status: 'running',
      },
    });
  }

  it('a run that fails to start is marked failed with the error, not lost', async () => {
    const run = await runThatCannotStart('lab2');
    const result = await executeRun(db, run, new AbortController().signal, () => {});
    expect(result.status).toBe('failed');
    expect(await db.run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/is not a shipped base/),
    });
  });

  it("a failed run's log carries the error message, and its stack trace goes to the worker's stderr only", async () => {
    const run = await runThatCannotStart('lab3');
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect((await executeRun(db, run, new AbortController().signal, () => {})).status).toBe('failed');
      const errors = await db.runLog.findMany({ where: { runId: run.id, level: 'error' } });
      expect(errors.map((l) => l.message)).toEqual([expect.stringMatching(/^model\.base "\/no\/such\/model" is not a shipped base/)]);
      expect(errors[0]!.message).not.toMatch(/^\s+at |file:\/\/|\/apps\/worker\//m);
      expect(stderr.mock.calls.flat().join('\n')).toMatch(/^\s+at .*apps\/worker\//m);
    } finally {
      stderr.mockRestore();
    }
  });
});
