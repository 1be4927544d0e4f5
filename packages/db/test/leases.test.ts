import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimRun,
  heartbeatRun,
  insertTrajectories,
  LeaseLostError,
  releaseRun,
  storeCheckpointFile,
  sweepStaleRuns,
  updateRunFenced,
  upsertMetrics,
  type Db,
} from '../src/index.js';
import { databaseWithRun, type TestRun } from '../src/testing.js';

const traj = (step: number) => ({
  step,
  split: 'train' as const,
  group: 0,
  indexInGroup: 0,
  seed: 1,
  env: 'bandit',
  success: true,
  totalReward: 1,
  numActions: 1,
  keptByFilter: true,
  turns: [],
});

describe('run leases with fencing', () => {
  let fixture: TestRun;
  let db: Db;
  let runId: string;
  let workerA: string;
  let workerB: string;
  beforeAll(async () => {
    fixture = await databaseWithRun('bandit');
    ({ db, runId } = fixture);
    const mk = (name: string) => db.worker.create({ data: { name, host: 'h', backend: 'cpu', device: 'd' } });
    workerA = (await mk('a')).id;
    workerB = (await mk('b')).id;
  });
  afterAll(() => fixture.close());

  it('each claim raises the epoch; writes under an older epoch are refused and store nothing', async () => {
    const a = (await claimRun(db, runId, workerA, false))!;
    expect(a.leaseEpoch).toBe(1);
    await upsertMetrics(db, runId, 1, { 'train/success': 0.5 }, new Date(), { lease: a.leaseEpoch });
    expect(await heartbeatRun(db, runId, a.leaseEpoch)).toEqual({ cancelRequested: false, stopReason: null });

    // the owner looked dead: swept back to the queue and claimed by another worker
    await db.run.update({ where: { id: runId }, data: { heartbeatAt: new Date(Date.now() - 60_000) } });
    expect(await sweepStaleRuns(db, 30_000)).toEqual({ requeued: [runId], cancelled: [] });
    const b = (await claimRun(db, runId, workerB, false))!;
    expect(b.leaseEpoch).toBe(3);

    const refused = (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(LeaseLostError);
    await refused(upsertMetrics(db, runId, 2, { 'train/success': 0.9 }, new Date(), { lease: a.leaseEpoch }));
    await refused(insertTrajectories(db, runId, [traj(2)], { lease: a.leaseEpoch }));
    await refused(storeCheckpointFile(db, runId, 2, 'state.json', new Uint8Array([1]), 'json', { lease: a.leaseEpoch }));
    await refused(updateRunFenced(db, runId, a.leaseEpoch, { currentStep: 2 }));
    expect(await heartbeatRun(db, runId, a.leaseEpoch)).toBeNull();
    expect(await db.metricPoint.count({ where: { runId, step: 2 } })).toBe(0);
    expect(await db.trajectory.count({ where: { runId } })).toBe(0);
    expect(await db.checkpoint.count({ where: { runId } })).toBe(0);

    // the current owner writes, and each point records its lease
    await upsertMetrics(db, runId, 2, { 'train/success': 0.7 }, new Date(), { lease: b.leaseEpoch });
    await insertTrajectories(db, runId, [traj(2)], { lease: b.leaseEpoch });
    await storeCheckpointFile(db, runId, 2, 'state.json', new Uint8Array([1]), 'json', { lease: b.leaseEpoch });
    const points = await db.metricPoint.findMany({ where: { runId }, orderBy: { step: 'asc' } });
    expect(points.map((p) => [p.step, p.value, p.lease])).toEqual([
      [1, 0.5, 1],
      [2, 0.7, 3],
    ]);
  });

  it('a shutdown hands the run back; the sweep cancels (never requeues) a dead run whose cancel was requested', async () => {
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(await releaseRun(db, runId, run.leaseEpoch, 2)).toBe('queued');
    await expect(releaseRun(db, runId, run.leaseEpoch, 2)).rejects.toBeInstanceOf(LeaseLostError);
    const c = (await claimRun(db, runId, workerA, false))!;
    expect(c).toMatchObject({ status: 'running', currentStep: 2, resumeCount: 2 });
    await db.run.update({ where: { id: runId }, data: { cancelRequestedAt: new Date(), heartbeatAt: new Date(Date.now() - 60_000) } });
    expect(await heartbeatRun(db, runId, c.leaseEpoch)).toEqual({ cancelRequested: true, stopReason: null });
    await db.run.update({ where: { id: runId }, data: { heartbeatAt: new Date(Date.now() - 60_000) } });
    expect(await sweepStaleRuns(db, 30_000)).toEqual({ requeued: [], cancelled: [runId] });
    expect(await db.run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({
      status: 'cancelled',
      stopReason: 'cancelled by user',
      workerId: null,
    });
  });
});
