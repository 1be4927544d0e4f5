import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, queuePosition, releaseRun, resumeRun, RunQueue, takeNextRun, type Db } from '../src/index.js';
import { freshDatabase, type TestDatabase } from '../src/testing.js';

describe('run queue', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db.drop());

  it('starts from several processes at once on a fresh database (API and workers racing to create its queues)', async () => {
    const queues = Array.from({ length: 4 }, () => new RunQueue(db.url));
    const started = await Promise.allSettled(queues.map((q) => q.start()));
    expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
    try {
      expect(await queues[0]!.dispatch('run-1', false)).toBe(true);
      expect(await queues[1]!.dispatch('run-1', false)).toBe(false); // one waiting dispatch per run
      const job = await queues[2]!.fetch(false);
      expect(job).toMatchObject({ queue: 'runs', runId: 'run-1' });
      expect(await queues[3]!.fetch(true)).toBeNull();
      await queues[2]!.complete(job!);
      expect(await queues[0]!.dispatch('run-gpu', true)).toBe(true);
      expect(await queues[1]!.fetch(false)).toBeNull(); // a CPU worker never takes GPU runs
      expect(await queues[1]!.fetch(true)).toMatchObject({ queue: 'runs-gpu', runId: 'run-gpu' });
    } finally {
      await Promise.all(queues.map((q) => q.stop()));
    }
  });
});

describe('the order runs are taken in', () => {
  let database: TestDatabase;
  let db: Db;
  let queue: RunQueue;
  let teamId: string;
  let workerId: string;
  beforeAll(async () => {
    database = await freshDatabase();
    db = createDb(database.url);
    queue = await new RunQueue(database.url).start();
    teamId = (await db.team.create({ data: { name: 'lab' } })).id;
    workerId = (await db.worker.create({ data: { name: 'w', host: 'h', backend: 'cpu', device: 'd' } })).id;
  });
  afterAll(async () => {
    await queue.stop();
    await db.$disconnect();
    await database.drop();
  });

  /** A run queued as the API queues one: the row, then its dispatch. */
  const queued = async (name: string) => {
    const run = await db.run.create({
      data: { teamId, name, kind: 'train', status: 'queued', config: {}, environment: 'bandit', algorithm: 'grpo', totalSteps: 3 },
    });
    await queue.dispatch(run.id, false);
    return run;
  };
  const next = async () => (await takeNextRun(db, queue, workerId, false))?.name ?? null;

  it('a run requeued by a worker shutdown keeps its place ahead of a run queued after it', async () => {
    await queued('older');
    const older = (await takeNextRun(db, queue, workerId, false))!;
    expect(older.name).toBe('older');
    await queued('newer'); // queued while the older one trains
    // Ctrl-C: the worker checkpoints, hands the run back and announces it again
    expect(await releaseRun(db, older.id, older.leaseEpoch, 1)).toBe('queued');
    await queue.dispatch(older.id, false);
    expect(await next()).toBe('older');
    expect(await next()).toBe('newer');
    expect(await next()).toBeNull();
  });

  it('a run resumed from the API joins the back of the queue, and its position says so', async () => {
    const failed = await db.run.create({
      data: {
        teamId,
        name: 'failed',
        kind: 'train',
        status: 'failed',
        config: {},
        environment: 'bandit',
        algorithm: 'grpo',
        totalSteps: 3,
      },
    });
    const waiting = await queued('waiting');
    expect(await resumeRun(db, failed.id)).toBe(true);
    await queue.dispatch(failed.id, false);
    const resumed = await db.run.findUniqueOrThrow({ where: { id: failed.id } });
    expect([await queuePosition(db, waiting), await queuePosition(db, resumed)]).toEqual([1, 2]);
    expect(await next()).toBe('waiting');
    expect(await next()).toBe('failed');
  });
});
