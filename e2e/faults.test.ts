import type { INestApplication } from '@nestjs/common';
import { createApp } from '@starpo/api/bootstrap';
import { createDb, migrate, type Db } from '@starpo/db';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '@starpo/db/embedded';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT } from './helpers.js';
import { expectStepsOnceFromOneLease, smallRun } from './fault-runs.js';

/**
 * Fault suite: real worker processes, an in-process API, and a Postgres server of its own that the
 * tests stop, restart and freeze. Every case ends with the same check: the run finishes with every
 * training step stored once, each step written under one lease, leases never going back (no two
 * owners interleaving). Observations go to docs/results/reliability.md (FAULTS_REPORT=path keeps them).
 */

// long enough that a worker loading a model on a busy machine is not taken for dead
const STALE_MS = 10_000;
// a case trains one or two small runs and waits out a stale timeout or a 30 s outage: minutes on a busy machine
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });
const WORKER_ENV = {
  STARPO_BACKEND: 'wasm',
  WORKER_POLL_MS: '200',
  WORKER_HEARTBEAT_MS: '500',
  WORKER_STALE_MS: String(STALE_MS),
  WORKER_SWEEP_MS: '500',
  WORKER_SHUTDOWN_MS: '15000',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Rows of the reliability table, written to FAULTS_REPORT when set. */
const report: string[] = [];
const note = (fault: string, expected: string, observed: string) => {
  report.push(`| ${fault} | ${expected} | ${observed} |`);
  if (process.env.FAULTS_REPORT) appendFileSync(process.env.FAULTS_REPORT, `${report.at(-1)}\n`);
};

describe('faults: killed, frozen and stopped processes; a stopped and a frozen database', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-faults-'));
  chmodSync(dir, 0o755);
  let pg: EmbeddedDatabase;
  let db: Db;
  let app: INestApplication;
  let auth: string;
  const workers = new Map<string, ChildProcess>();
  const logs = new Map<string, string>();
  const http = () => request(app.getHttpServer());
  const startPg = (port?: number) => startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), port });

  function startWorker(name: string): ChildProcess {
    const child = spawn(process.execPath, ['--trace-exit', path.join(ROOT, 'apps/worker/dist/main.js')], {
      env: { ...process.env, ...WORKER_ENV, DATABASE_URL: pg.url, WORKER_NAME: name },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    logs.set(name, '');
    const add = (d: Buffer) => logs.set(name, logs.get(name)! + d.toString());
    child.stdout!.on('data', add);
    child.stderr!.on('data', add);
    workers.set(name, child);
    return child;
  }
  const allLogs = () => [...logs.entries()].map(([n, l]) => `--- ${n}\n${l.slice(-2500)}`).join('\n');

  async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 120_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn().catch(() => null);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${allLogs()}`);
      await sleep(100);
    }
  }
  const row = (id: string) => db.run.findUniqueOrThrow({ where: { id } });
  const untilStatus = (id: string, statuses: string[], timeoutMs?: number) =>
    waitFor(`run ${id} to be ${statuses.join('|')}`, async () => ((r) => statuses.includes(r.status) && r)(await row(id)), timeoutMs);
  const untilStep = (id: string, step: number) =>
    waitFor(`run ${id} at step ${step}`, async () => ((r) => r.status === 'running' && r.currentStep >= step && r)(await row(id)));
  const owner = async (id: string) => (await db.worker.findUniqueOrThrow({ where: { id: (await row(id)).workerId! } })).name;

  async function launch(name: string, steps: number, over?: Record<string, unknown>): Promise<string> {
    return (
      await http()
        .post('/api/runs')
        .set('Authorization', auth)
        .send({ name, ...smallRun(steps, over) })
        .expect(201)
    ).body.id;
  }

  /** A pretrain job as the API queues it: tens of seconds of supervised steps on a loaded machine. */
  async function launchPretrain(name: string): Promise<string> {
    const body = { name, env: 'bandit', size: 'nano', dialogues: 2000, valSize: 4 };
    return (await http().post('/api/base-models').set('Authorization', auth).send(body).expect(202)).body.id;
  }
  const pretrainUnderWay = (id: string) =>
    waitFor(`pretrain ${id} in its supervised training`, async () =>
      db.runLog.findFirst({ where: { runId: id, message: { startsWith: 'phase: supervised training' } } }),
    );
  const registered = (id: string) => db.baseModel.count({ where: { runId: id } });

  /** Every training step stored once, each step from one lease, leases non-decreasing with the step; returns the leases seen. */
  async function verifyRun(id: string, steps: number): Promise<number[]> {
    const done = await untilStatus(id, ['succeeded', 'failed', 'cancelled'], 180_000);
    expect(done.status, allLogs()).toBe('succeeded');
    expect(done.currentStep).toBe(steps);
    return expectStepsOnceFromOneLease(db, id, steps);
  }

  /** Every process of the Postgres cluster: the postmaster and its children. */
  function clusterPids(): number[] {
    const pids = [pg.pid!];
    for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const ppid = Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
        if (ppid === pg.pid) pids.push(Number(p));
      } catch {
        // gone meanwhile
      }
    }
    return pids;
  }

  /** Time a request that must answer 503 (or 200 once back) without hanging. */
  async function timed(pathname: string): Promise<{ status: number; ms: number }> {
    const t0 = Date.now();
    const res = await http().get(pathname).set('Authorization', auth).timeout(20_000);
    return { status: res.status, ms: Date.now() - t0 };
  }

  beforeAll(async () => {
    mkdirSync(path.join(dir, 'data'), { recursive: true });
    pg = await startPg();
    await migrate(pg.url);
    db = createDb(pg.url);
    // the in-process API sweeps with the workers' timings
    process.env.WORKER_STALE_MS = String(STALE_MS);
    process.env.WORKER_SWEEP_MS = '500';
    app = await createApp({ databaseUrl: pg.url, webOrigin: 'http://localhost:3000' }, { logger: false });
    await app.listen(0, '127.0.0.1');
    const res = await http().post('/api/auth/signup').send({ email: 'f@lab.test', password: 'correct horse', name: 'F' }).expect(201);
    const cookie = String(res.headers['set-cookie']?.[0]).split(';')[0]!;
    auth = `Bearer ${(await http().post('/api/tokens').set('Cookie', cookie).send({ name: 'faults' }).expect(201)).body.token}`;
    startWorker('w1');
  });
  afterAll(async () => {
    for (const w of workers.values()) if (w.exitCode === null) w.kill('SIGKILL');
    await app?.close().catch(() => {});
    await db?.$disconnect().catch(() => {});
    await pg?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    if (report.length) console.log(`fault | expected | observed\n${report.join('\n')}`);
  });

  it('worker SIGKILL mid-step: the run is requeued and finished by another worker', async () => {
    const id = await launch('sigkill', 8);
    await untilStep(id, 2);
    const victim = await owner(id);
    workers.get(victim)!.kill('SIGKILL');
    const t0 = Date.now();
    startWorker('w2');
    const back = await waitFor('the run claimed again', async () =>
      ((r) => r.status === 'running' && r.workerId && r.resumeCount >= 1 && r)(await row(id)),
    );
    const backMs = Date.now() - t0;
    const leases = await verifyRun(id, 8);
    note(
      'worker SIGKILL mid-step',
      'requeued after the stale timeout, finished by another worker, each step once',
      `claimed again ${(backMs / 1000).toFixed(1)} s after the kill (stale timeout ${STALE_MS / 1000} s; resume ${back.resumeCount}); 8/8 steps once; leases ${leases.join('→')}`,
    );
  });

  it('worker SIGSTOP past the stale timeout, then SIGCONT: the old owner stops, no interleaving', async () => {
    startWorker('w3');
    const id = await launch('sigstop', 10);
    await untilStep(id, 2);
    const victim = await owner(id);
    const first = (await row(id)).leaseEpoch;
    workers.get(victim)!.kill('SIGSTOP');
    const taken = await waitFor('another worker to own the run', async () =>
      ((r) => r.status === 'running' && r.leaseEpoch > first && r.workerId && r)(await row(id)),
    );
    const newOwner = await owner(id);
    expect(newOwner).not.toBe(victim);
    await untilStep(id, taken.currentStep + 1);
    workers.get(victim)!.kill('SIGCONT');
    // a woken worker finishes its current phase first: on a loaded machine that can outlast the run itself
    await waitFor(`${victim} to say its lease is gone`, async () => /lost the lease on run/.test(logs.get(victim)!));
    const leases = await verifyRun(id, 10);
    const stale = await db.metricPoint.count({ where: { runId: id, lease: first, step: { gt: taken.currentStep } } });
    expect(stale).toBe(0);
    // the old owner says so in its own log only: the run's log is the new owner's
    const runLog = await db.runLog.findFirst({ where: { runId: id, message: { contains: 'lost the lease' } } });
    expect(runLog).toBeNull();
    note(
      'worker SIGSTOP > stale timeout, then SIGCONT',
      'another worker takes over; the old one stops on SIGCONT and writes nothing more',
      `taken over by ${newOwner} (lease ${first}→${taken.leaseEpoch}); ${victim} logged "lost the lease" in stderr only, nothing in the run log; 0 points of lease ${first} after step ${taken.currentStep}; 10/10 steps once; leases ${leases.join('→')}`,
    );
  });

  it('worker SIGTERM: checkpoint of the current step, requeued within 5 s, exit without a library exit hook', async () => {
    const id = await launch('sigterm', 8);
    await untilStep(id, 2);
    const victim = await owner(id);
    const before = await row(id);
    const child = workers.get(victim)!;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const t0 = Date.now();
    child.kill('SIGTERM');
    const requeued = await waitFor('the run requeued', async () =>
      ((r) => r.leaseEpoch > before.leaseEpoch && r.resumeCount > before.resumeCount && r)(await row(id)),
    );
    const requeueMs = Date.now() - t0;
    const code = await exited;
    const exitMs = Date.now() - t0;
    expect(requeueMs).toBeLessThan(5000);
    expect(code).toBe(0);
    // --trace-exit prints who called process.exit: the worker's own main, not an exit hook
    const trace = logs.get(victim)!;
    expect(trace).toMatch(/Exited the environment with code 0/);
    expect(trace).not.toMatch(/async-exit-hook/);
    const ckpt = await db.checkpoint.findFirst({ where: { runId: id, kind: 'state.json' }, orderBy: { step: 'desc' } });
    expect(ckpt!.step).toBeGreaterThanOrEqual(before.currentStep);
    expect(ckpt!.step).toBe(requeued.currentStep);
    startWorker('w4');
    const leases = await verifyRun(id, 8);
    note(
      'worker SIGTERM',
      'checkpoint of the current step, run requeued within 5 s, exit 0 (no exit hook)',
      `requeued after ${(requeueMs / 1000).toFixed(1)} s with the checkpoint of step ${ckpt!.step} (step ${before.currentStep} when signalled); exit 0 after ${(exitMs / 1000).toFixed(1)} s, --trace-exit: worker main; 8/8 steps once; leases ${leases.join('→')}`,
    );
  });

  it('cancel during the first validation: stopped within 10 s; resumed, it validates first and finishes', async () => {
    // a validation long enough to be cut short on a fast engine: 1,024 episodes of up to 16 tokens
    const id = await launch('cancel-validation', 2, {
      rollout: { envGroups: 2, groupSize: 4, maxNewTokens: 16, validation: { size: 1024, every: 2, beforeTraining: true } },
    });
    // cancel once the worker reports the first validation's progress, not after a fixed wait
    await waitFor('the first validation under way', async () =>
      ((r) => {
        const p = r.progress as { phase?: string; step?: number; done?: number } | null;
        return r.status === 'running' && p?.phase === 'validation' && p.step === 0 && (p.done ?? 0) > 0 && r;
      })(await row(id)),
    );
    const t0 = Date.now();
    await http().post(`/api/runs/${id}/cancel`).set('Authorization', auth).expect(202);
    const cancelled = await untilStatus(id, ['cancelled'], 10_000);
    const stopMs = Date.now() - t0;
    expect(cancelled).toMatchObject({ stopReason: 'cancelled by F', currentStep: 0 });
    expect(await db.metricPoint.count({ where: { runId: id, key: 'val/success' } })).toBe(0);
    const state = await db.checkpoint.findFirst({ where: { runId: id, step: 0, kind: 'state.json' } });
    expect(state).not.toBeNull();
    await http().post(`/api/runs/${id}/resume`).set('Authorization', auth).expect(202);
    const leases = await verifyRun(id, 2);
    const val0 = await db.metricPoint.count({ where: { runId: id, key: 'val/success', step: 0 } });
    expect(val0).toBe(1);
    note(
      'cancel during the first validation',
      'stopped within 10 s with a checkpoint; the resumed run validates first',
      `cancelled after ${(stopMs / 1000).toFixed(1)} s at step 0; resumed: step-0 validation stored once, 2/2 steps once; leases ${leases.join('→')}`,
    );
  });

  it('cancel of a pretrain job: noticed within 2 s, ended cancelled, no base model registered', async () => {
    const id = await launchPretrain('bm-cancel');
    await pretrainUnderWay(id);
    const t0 = Date.now();
    await http().post(`/api/runs/${id}/cancel`).set('Authorization', auth).expect(202);
    const done = await untilStatus(id, ['cancelled', 'succeeded', 'failed'], 60_000);
    const stopMs = Date.now() - t0;
    expect(done, allLogs()).toMatchObject({ status: 'cancelled', stopReason: 'cancelled by F' });
    // both lines are stamped by the database: the API's request and the worker's notice of it
    const line = (m: string) => db.runLog.findFirstOrThrow({ where: { runId: id, message: { contains: m } } });
    const noticedMs = (await line('stopping the current phase')).at.getTime() - (await line('cancel requested')).at.getTime();
    expect(noticedMs).toBeLessThan(2000);
    await sleep(3000); // a job that went on would register its model within moments of its end
    expect(await registered(id)).toBe(0);
    const names = (await http().get('/api/base-models').set('Authorization', auth).expect(200)).body.map((m: { name: string }) => m.name);
    expect(names).not.toContain('bm-cancel');
    note(
      'cancel of a pretrain job during its supervised training',
      'noticed within 2 s, ended `cancelled`, no base model',
      `noticed ${(noticedMs / 1000).toFixed(1)} s after the request, \`cancelled\` ${(stopMs / 1000).toFixed(1)} s after it; no base model registered`,
    );
  });

  it('worker SIGTERM during a pretrain job: requeued, exit 0 within WORKER_SHUTDOWN_MS; another worker pretrains it from the start', async () => {
    const id = await launchPretrain('bm-sigterm');
    await pretrainUnderWay(id);
    const victim = await owner(id);
    const before = await row(id);
    const child = workers.get(victim)!;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const t0 = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    const exitMs = Date.now() - t0;
    expect(code, logs.get(victim)).toBe(0);
    expect(exitMs).toBeLessThan(Number(WORKER_ENV.WORKER_SHUTDOWN_MS));
    const requeued = await row(id);
    expect(requeued.leaseEpoch).toBeGreaterThan(before.leaseEpoch);
    expect(requeued.resumeCount).toBe(before.resumeCount + 1);
    expect(await registered(id)).toBe(0);
    startWorker(`${victim}-next`);
    const done = await untilStatus(id, ['succeeded', 'failed', 'cancelled'], 240_000);
    expect(done.status, allLogs()).toBe('succeeded');
    expect(await registered(id)).toBe(1);
    note(
      'worker SIGTERM during a pretrain job',
      `requeued, exit 0 within WORKER_SHUTDOWN_MS (${Number(WORKER_ENV.WORKER_SHUTDOWN_MS) / 1000} s); the next worker pretrains it from the start`,
      `exit 0 after ${(exitMs / 1000).toFixed(1)} s, the job back in the queue (resume ${requeued.resumeCount}, lease ${before.leaseEpoch}→${requeued.leaseEpoch}), no base model; pretrained again by another worker: \`succeeded\`, one base model`,
    );
  });

  it('Postgres stopped for 30 s: 503 during, recovery after, nothing lost', async () => {
    const id = await launch('pg-stopped', 8);
    await untilStep(id, 2);
    await pg.stop();
    const t0 = Date.now();
    const answers: { status: number; ms: number }[] = [];
    while (Date.now() - t0 < 30_000) {
      answers.push(await timed('/health'), await timed('/api/runs'));
      await sleep(1000);
    }
    pg = await startPg(pg.port);
    expect(answers.every((a) => a.status === 503)).toBe(true);
    const slowest = Math.max(...answers.map((a) => a.ms));
    expect(slowest).toBeLessThan(5000);
    await waitFor('/health 200', async () => (await timed('/health')).status === 200, 30_000);
    const recoverMs = Date.now() - t0 - 30_000;
    const leases = await verifyRun(id, 8);
    note(
      'Postgres stopped 30 s',
      '503 during, recovery after, nothing lost',
      `${answers.length}/${answers.length} requests 503 (slowest ${slowest} ms); /health 200 ${(recoverMs / 1000).toFixed(1)} s after restart; 8/8 steps once; leases ${leases.join('→')}`,
    );
  });

  it('Postgres frozen (SIGSTOP): 503 within 5 s, and everything resumes after SIGCONT', async () => {
    const id = await launch('pg-frozen', 6);
    await untilStep(id, 2);
    const pids = clusterPids();
    for (const p of pids) process.kill(p, 'SIGSTOP');
    let answers: { status: number; ms: number }[] = [];
    try {
      answers = [await timed('/health'), await timed('/api/runs'), await timed(`/api/runs/${id}`)];
    } finally {
      for (const p of pids) process.kill(p, 'SIGCONT');
    }
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503]);
    const slowest = Math.max(...answers.map((a) => a.ms));
    expect(slowest).toBeLessThan(5000);
    await waitFor('/health 200', async () => (await timed('/health')).status === 200, 30_000);
    const leases = await verifyRun(id, 6);
    note(
      'Postgres frozen (SIGSTOP of every server process)',
      '503 within 5 s, never a hang; recovery after SIGCONT',
      `3/3 requests 503, slowest ${slowest} ms; 6/6 steps once; leases ${leases.join('→')}`,
    );
  });
});
