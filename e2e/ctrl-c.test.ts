import { createDb, type Db } from '@starpo/db';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { expectStepsOnceFromOneLease, smallRun } from './fault-runs.js';
import { FAST_WORKER_ENV, freshSystemEnv, startSystem, type Started } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// two start-ups and an 6-step run: a few minutes on a busy machine
vi.setConfig({ testTimeout: 420_000 });

describe('Ctrl-C in the terminal: SIGINT to the whole process group of npm start', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-ctrl-c-'));
  chmodSync(tmp, 0o755);
  const env = { ...freshSystemEnv(path.join(tmp, 'postgres'), false), ...FAST_WORKER_ENV };
  let sys: Started | null = null;
  afterAll(async () => {
    if (sys && sys.child.exitCode === null) {
      sys.child.kill('SIGTERM');
      await sys.exited;
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('the worker checkpoints and requeues, Postgres stops last, `stopped` is printed; the next start resumes the run', async () => {
    sys = await startSystem(env, 120_000, { ownGroup: true });
    const api = (base: string, p: string, init: RequestInit = {}, token?: string) =>
      fetch(`${base}${p}`, {
        ...init,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers },
      });
    const waitFor = async <T>(what: string, fn: () => Promise<T | null | false | undefined>, ms = 120_000): Promise<T> => {
      const end = Date.now() + ms;
      for (;;) {
        const v = await fn().catch(() => null);
        if (v) return v;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${sys!.output().slice(-4000)}`);
        await sleep(200);
      }
    };
    const signup = await api(sys.apiUrl, '/api/auth/signup', {
      method: 'POST',
      body: JSON.stringify({ email: 'c@lab.test', password: 'correct horse', name: 'C', teamName: 'lab' }),
    });
    const cookie = signup.headers.get('set-cookie')!.split(';')[0]!;
    const token = (await (await api(sys.apiUrl, '/api/tokens', { method: 'POST', body: '{"name":"c"}', headers: { cookie } })).json())
      .token as string;
    const run = await (
      await api(sys.apiUrl, '/api/runs', { method: 'POST', body: JSON.stringify({ name: 'ctrl-c', ...smallRun(6) }) }, token)
    ).json();
    const first = sys;
    await waitFor(
      'step 2',
      async () => ((await (await api(first.apiUrl, `/api/runs/${run.id}`, {}, token)).json()) as { currentStep: number }).currentStep >= 2,
    );

    // what a terminal does on Ctrl-C: SIGINT to every process of the foreground group
    const signalledAt = Date.now();
    process.kill(-first.child.pid!, 'SIGINT');
    expect(await first.exited, first.output()).toBe(0);
    const stopMs = Date.now() - signalledAt;
    const out = first.output();
    expect(out).toMatch(/\[starpo\] stopped/);
    expect(out).not.toMatch(/hand-back failed|shutdown took longer/);
    // the order: the worker requeued its run before Postgres went down
    expect(out.indexOf('[starpo] stopped')).toBeGreaterThan(out.lastIndexOf('[worker]'));
    expect(stopMs).toBeLessThan(30_000);

    sys = await startSystem(env);
    const pgPort = Number(/embedded PostgreSQL on port (\d+)/.exec(sys.output())![1]);
    const db: Db = createDb(`postgresql://postgres:postgres@127.0.0.1:${pgPort}/starpo`);
    try {
      const second = sys;
      const upAt = Date.now();
      const resumed = await waitFor(
        'the run to resume',
        async () => ((r) => r.status === 'running' && r)(await (await api(second.apiUrl, `/api/runs/${run.id}`, {}, token)).json()),
        60_000,
      );
      const resumeMs = Date.now() - upAt;
      expect(resumeMs).toBeLessThan(15_000);
      const checkpoints = await db.checkpoint.findMany({ where: { runId: run.id }, select: { step: true } });
      expect(Math.max(...checkpoints.map((c) => c.step))).toBeGreaterThanOrEqual(2);
      const log = async () => (await db.runLog.findMany({ where: { runId: run.id }, orderBy: { id: 'asc' } })).map((l) => l.message);
      expect((await log()).some((m) => /requeued at step \d+ \(worker shutting down\)/.test(m))).toBe(true);
      // the new owner's start line follows its claim once the model is loaded
      await waitFor(
        'the resume in the run log',
        async () => (await log()).some((m) => /resumed from step [1-9]\d* on worker/.test(m)),
        30_000,
      );
      const done = await waitFor(
        'the run to finish',
        async () =>
          ((r) => ['succeeded', 'failed', 'cancelled'].includes(r.status) && r)(
            await (await api(second.apiUrl, `/api/runs/${run.id}`, {}, token)).json(),
          ),
        240_000,
      );
      expect(done).toMatchObject({ status: 'succeeded', currentStep: 6 });
      await expectStepsOnceFromOneLease(db, run.id, 6);
      console.log(
        `group SIGINT: stopped in ${(stopMs / 1000).toFixed(1)} s; resumed (running) ${(resumeMs / 1000).toFixed(1)} s after the restart, from step ${resumed.currentStep}`,
      );
    } finally {
      await db.$disconnect();
    }
  });
});
