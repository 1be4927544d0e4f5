import { buildRunConfig } from '@starpo/contracts';
import { cancelRun, claimRun, type Db, type Run } from '@starpo/db';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { WORKER_SHUTDOWN } from '../src/db-sink.js';
import { executeRun, LEASE_LOST } from '../src/execute.js';
import { registerWorker } from '../src/registration.js';
import { useWorkerDatabase } from './worker-db.js';

/**
 * One job of each kind a worker executes, small enough to start in seconds and long enough to be
 * under way when it is stopped: `underWay` says when the job is in its long phase.
 */
const JOBS = {
  train: {
    data: () => {
      // a few seconds a step, 50 steps
      const config = buildRunConfig('quick-cpu', {
        env: { name: 'bandit' },
        model: { base: 'starpo-tiny/nano' },
        rollout: { envGroups: 2, groupSize: 4, maxNewTokens: 8, validation: { size: 4, every: 0, beforeTraining: false } },
        ppo: { miniBatchSize: 4, microBatchSize: 4 },
        training: { steps: 50, checkpointEvery: 1 },
        earlyStopping: { enabled: false },
      });
      return { kind: 'train' as const, config: config as object, environment: 'bandit', algorithm: 'turn_return', totalSteps: 50 };
    },
    underWay: async (_db: Db, r: Run) => r.currentStep >= 1,
  },
  pretrain: {
    // as POST /api/base-models queues it: tens of seconds of supervised steps on a loaded machine
    data: () => ({
      kind: 'pretrain' as const,
      config: { pretrain: { name: 'bm-stop', env: 'bandit', size: 'nano', dialogues: 2000, valSize: 4 } },
      environment: 'bandit',
      algorithm: 'sft',
    }),
    underWay: async (db: Db, r: Run) =>
      (await db.runLog.count({ where: { runId: r.id, message: { startsWith: 'phase: supervised training' } } })) > 0,
  },
};

describe.each(Object.keys(JOBS) as (keyof typeof JOBS)[])('every kind of job stops the same way: %s', (kind) => {
  const database = useWorkerDatabase();
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  /** A claimed job of this kind, executing (the heartbeat polls every 0.5 s), and once it is under way. */
  async function startJob(name: string, signal = new AbortController().signal) {
    const team = await db.team.create({ data: { name: `lab ${name}` } });
    const created = await db.run.create({ data: { teamId: team.id, name, ...JOBS[kind].data() } });
    const worker = await registerWorker(db, { backend: 'wasm', device: 'test', hasGpu: false });
    const run = (await claimRun(db, created.id, worker.id, false))!;
    const lines: { at: number; line: string }[] = [];
    const done = executeRun(db, run, signal, (line) => lines.push({ at: Date.now(), line }), { cancelPollMs: 500 });
    const ended = done.then(() => Date.now());
    for (;;) {
      const row = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      if (await JOBS[kind].underWay(db, row)) break;
      expect(row.status, 'the job ended before it was under way').toBe('running');
      await sleep(100);
    }
    return { run, done, ended, lines };
  }

  const baseModels = (runId: string) => db.baseModel.count({ where: { runId } });

  it('a cancel is noticed within 2 s and ends the job cancelled, with nothing registered', async () => {
    const { run, done, ended, lines } = await startJob(`cancel-${kind}`);
    const t0 = Date.now();
    expect(await cancelRun(db, run, 'Tess')).toBe(true);
    const result = await done;
    const noticedMs = (lines.find((l) => /cancelled by Tess; stopping it/.test(l.line))?.at ?? Infinity) - t0;
    const endedMs = (await ended) - t0;
    console.log(`${kind}: cancel noticed after ${noticedMs} ms, job ended after ${endedMs} ms`);
    expect(result).toMatchObject({ status: 'cancelled', stopReason: 'cancelled by Tess' });
    expect(await db.run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      status: 'cancelled',
      stopReason: 'cancelled by Tess',
    });
    expect(noticedMs).toBeLessThan(2000);
    expect(endedMs).toBeLessThan(10_000);
    expect(await baseModels(run.id)).toBe(0);
  }, 180_000);

  it('a shutdown hands the job back to the queue well within WORKER_SHUTDOWN_MS, with nothing registered', async () => {
    const abort = new AbortController();
    const { run, done, ended } = await startJob(`shutdown-${kind}`, abort.signal);
    const t0 = Date.now();
    abort.abort(WORKER_SHUTDOWN); // what the worker does on SIGTERM
    const result = await done;
    const endedMs = (await ended) - t0;
    console.log(`${kind}: shutdown honoured after ${endedMs} ms`);
    expect(result.stopReason).toBe(WORKER_SHUTDOWN);
    const row = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row).toMatchObject({ status: 'queued', workerId: null, resumeCount: run.resumeCount + 1 });
    expect(row.leaseEpoch).toBeGreaterThan(run.leaseEpoch);
    // at the step its next claim continues from: its latest checkpoint's, 0 without one
    const latest = await db.checkpoint.findFirst({ where: { runId: run.id, kind: 'state.json' }, orderBy: { step: 'desc' } });
    expect(row.currentStep).toBe(latest?.step ?? 0);
    expect(endedMs).toBeLessThan(10_000);
    expect(await baseModels(run.id)).toBe(0);
  }, 180_000);

  it('a lost lease stops the job within a beat or two, and it writes nothing more', async () => {
    const { run, done, ended } = await startJob(`lost-${kind}`);
    // another worker takes the job over
    await db.run.update({ where: { id: run.id }, data: { leaseEpoch: run.leaseEpoch + 1 } });
    const t0 = Date.now();
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    const logsBefore = await db.runLog.count({ where: { runId: run.id } });
    try {
      expect((await done).stopReason).toBe(LEASE_LOST);
    } finally {
      stderr.mockRestore();
    }
    const endedMs = (await ended) - t0;
    console.log(`${kind}: lost lease honoured after ${endedMs} ms`);
    expect(endedMs).toBeLessThan(10_000);
    expect(await db.runLog.count({ where: { runId: run.id } })).toBe(logsBefore);
    expect(await db.run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ status: 'running' });
    expect(await baseModels(run.id)).toBe(0);
  }, 180_000);
});
