import { buildRunConfig } from '@starpo/contracts';
import { cancelRun, claimRun, databaseUrlOf, isLeaseLost, type Db } from '@starpo/db';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DbSink } from '../src/db-sink.js';
import { executeRun } from '../src/execute.js';
import { registerWorker, startHeartbeat } from '../src/registration.js';
import { useWorkerDatabase } from './worker-db.js';

describe('heartbeat and cancel while environment generation holds the event loop', () => {
  const database = useWorkerDatabase();
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  it('keeps the heartbeat fresh and cancels within 10 s on the costliest Sokoban rooms a launch admits', async () => {
    // 16×16 rooms with 4 boxes at the reset budget: each reset is seconds of synchronous generation
    const config = buildRunConfig('quick-cpu', {
      env: { name: 'sokoban', config: { rows: 16, cols: 16, numBoxes: 4, searchDepth: 1000, maxExploredStates: 15_625 } },
      model: { base: 'starpo-tiny/nano' },
      rollout: { envGroups: 8, groupSize: 2, maxNewTokens: 8, validation: { size: 2, every: 0, beforeTraining: false } },
      ppo: { miniBatchSize: 2, microBatchSize: 2, epochs: 1 },
      training: { steps: 50, checkpointEvery: 0 },
    });
    const team = await db.team.create({ data: { name: 'lab' } });
    const created = await db.run.create({
      data: { teamId: team.id, name: 'heavy', config: config as object, environment: 'sokoban', algorithm: 'turn_return', totalSteps: 50 },
    });
    const worker = await registerWorker(db, { backend: 'wasm', device: 'test', hasGpu: false });
    const run = (await claimRun(db, created.id, worker.id, false))!;
    const done = executeRun(db, run, new AbortController().signal, () => {}, { cancelPollMs: 500 });

    // the heartbeat's age as the database sees it, sampled whenever this (busy) event loop lets us
    const ages: number[] = [];
    const sample = setInterval(() => {
      void db
        .$queryRawUnsafe<{ age: number }[]>(
          'SELECT extract(epoch FROM now() - heartbeat_at)::float8 AS age FROM runs WHERE id = $1::uuid',
          run.id,
        )
        .then((r) => ages.push(r[0]!.age));
    }, 250);
    const startedAt = Date.now();
    while (Date.now() - startedAt < 8_000) await new Promise((r) => setTimeout(r, 250));
    const before = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(before.error ?? before.status).toBe('running');
    expect(await cancelRun(db, run)).toBe(true);
    const cancelledAt = Date.now();
    const result = await done;
    const cancelMs = Date.now() - cancelledAt;
    clearInterval(sample);

    expect(result.status).toBe('cancelled');
    expect(cancelMs).toBeLessThan(10_000);
    expect(ages.length).toBeGreaterThan(3);
    // beats every 0.5 s from their own thread: never near the 60 s stale limit, nor even a few seconds old
    expect(Math.max(...ages)).toBeLessThan(2.5);
    console.log(`cancel took ${cancelMs} ms; heartbeat age at most ${Math.max(...ages).toFixed(2)} s over ${ages.length} samples`);
  }, 120_000);

  it("keeps the worker's heartbeat and the run's beating while a pretrain job runs, and the database never seems away", async () => {
    const team = await db.team.create({ data: { name: 'lab pretrain' } });
    // as POST /api/base-models queues it: about 10 s of teacher dialogues and supervised steps on a loaded machine
    const pretrain = { name: 'bm-beat', env: 'bandit', size: 'nano', dialogues: 1000, valSize: 4 };
    const created = await db.run.create({
      data: { teamId: team.id, kind: 'pretrain', name: 'pretrain bm-beat', config: { pretrain }, environment: 'bandit', algorithm: 'sft' },
    });
    const worker = await registerWorker(db, { backend: 'wasm', device: 'test', hasGpu: false });
    const run = (await claimRun(db, created.id, worker.id, false))!;
    const stderr = vi.spyOn(console, 'error');
    const stopBeating = startHeartbeat(db, worker.id, 500, (e) => console.error(`heartbeat failed: ${e.message}`));
    // sampled from a thread of its own: this event loop is the one under test
    const sampler = new Worker(new URL('./heartbeat-sampler-thread.mjs', import.meta.url), {
      workerData: { url: databaseUrlOf(db), runId: run.id, workerId: worker.id, everyMs: 250 },
    });
    let errors = '';
    try {
      const result = await executeRun(db, run, new AbortController().signal, () => {}, { cancelPollMs: 500 });
      expect(result.stopReason ?? result.status).toBe('succeeded');
    } finally {
      stopBeating();
      sampler.postMessage('stop');
      errors = stderr.mock.calls.flat().join('\n');
      stderr.mockRestore();
    }
    const [samples] = (await once(sampler, 'message')) as [{ worker: number; run: number }[]];
    // the longest wait between two beats each heartbeat made (from its first one: starting up is not beating)
    const longestGap = (k: 'worker' | 'run') => {
      const beats = [...new Set(samples.map((s) => s[k]))].sort((a, b) => a - b).slice(1);
      return { beats: beats.length, gap: Math.max(...beats.slice(1).map((t, i) => t - beats[i]!)) };
    };
    const [w, r] = [longestGap('worker'), longestGap('run')];
    console.log(
      `worker: ${w.beats} beats, at most ${w.gap.toFixed(2)} s apart; run: ${r.beats} beats, at most ${r.gap.toFixed(2)} s apart`,
    );
    // both beat every 0.5 s: a few seconds apart at most on a loaded machine, never a whole phase apart
    // (how many beats depends on how fast the machine runs the job: enough to measure gaps, not a count)
    expect(w.beats).toBeGreaterThanOrEqual(4);
    expect(r.beats).toBeGreaterThanOrEqual(4);
    expect(w.gap).toBeLessThan(3);
    expect(r.gap).toBeLessThan(3);
    expect(errors).not.toMatch(/database unreachable|heartbeat failed/);
  }, 180_000);

  /** A run claimed by a fresh worker, and the sink that worker writes it through. */
  async function claimedRun(name: string): Promise<{ runId: string; lease: number; owner: DbSink }> {
    const team = await db.team.create({ data: { name: `lab ${name}` } });
    const created = await db.run.create({
      data: { teamId: team.id, name, config: {}, environment: 'bandit', algorithm: 'grpo', totalSteps: 3 },
    });
    const worker = await registerWorker(db, { backend: 'wasm', device: 'test', hasGpu: false });
    const run = (await claimRun(db, created.id, worker.id, false))!;
    return { runId: run.id, lease: run.leaseEpoch, owner: new DbSink(db, run.id, run.leaseEpoch) };
  }
  /** What a write rejected with (null when it succeeded). */
  const rejection = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e,
    );

  it('a worker that lost its lease writes no log line either', async () => {
    const { runId, lease, owner } = await claimedRun('taken');
    await owner.log('info', 'step 1 done');
    // another worker takes the run over: a new lease
    await db.run.update({ where: { id: runId }, data: { leaseEpoch: lease + 1 } });
    expect(isLeaseLost(await rejection(owner.log('warn', 'run cancelled at step 1 (worker shutting down)')))).toBe(true);
    expect((await db.runLog.findMany({ where: { runId } })).map((l) => l.message)).toEqual(['step 1 done']);
  });

  it('a lost lease met by the background metrics flusher fails the next write at once, with nothing stored', async () => {
    const { runId, lease, owner } = await claimedRun('woken');
    await owner.metrics(1, { 'train/success': 0.5 });
    await owner.flush();
    // another worker takes the run over while this one is frozen; woken, it writes its next step
    await db.run.update({ where: { id: runId }, data: { leaseEpoch: lease + 1 } });
    const thread = new Worker(new URL('./sink-takeover-thread.mjs', import.meta.url), {
      workerData: { url: databaseUrlOf(db), runId, lease },
    });
    const outcome = await Promise.race([
      once(thread, 'message').then(([m]) => m as unknown),
      sleep(30_000, 'no answer in 30 s: the sink spins', { ref: false }),
    ]);
    await thread.terminate();
    expect(outcome).toEqual({ trajectories: 'lease lost', flush: 'lease lost', metrics: 'lease lost' });
    expect((await db.metricPoint.findMany({ where: { runId } })).map((p) => p.step)).toEqual([1]);
  });
});
