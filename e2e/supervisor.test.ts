import { createDb, type Db } from '@starpo/db';
import { appendFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { expectStepsOnceFromOneLease, smallRun } from './fault-runs.js';
import { FAST_WORKER_ENV, freshSystemEnv, startSystem } from './helpers.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const lastPid = (out: string, name: string) =>
  Number([...out.matchAll(new RegExp(`\\[starpo\\] ${name} (?:re)?started \\(pid (\\d+)`, 'g'))].at(-1)![1]);
// start-up, an 8-step run, two restarts and a drain: a few minutes on a busy machine
vi.setConfig({ testTimeout: 420_000 });

describe('npm start supervises its processes', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-supervise-'));
  chmodSync(tmp, 0o755);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('API SIGKILL: restarted, live clients catch up; Postgres SIGKILL: restarted; the run finishes with every step once from one lease; Ctrl-C stops all', async () => {
    // every child's output (not quiet), for the failure message
    const sys = await startSystem({ ...freshSystemEnv(path.join(tmp, 'postgres'), false), ...FAST_WORKER_ENV, WORKER_STALE_MS: '8000' });
    const pgPort = Number(/embedded PostgreSQL on port (\d+)/.exec(sys.output())![1]);
    const db: Db = createDb(`postgresql://postgres:postgres@127.0.0.1:${pgPort}/starpo`);
    let socket: Socket | null = null;
    let runId = '';
    /** The supervisor's output without the dashboard's, and the run's log as stored. */
    const diagnosis = async () => {
      const logs = runId
        ? await db.runLog
            .findMany({ where: { runId }, orderBy: { id: 'asc' } })
            .then((rows) => rows.map((r) => `${r.at.toISOString()} ${r.level} ${r.message.slice(0, 300)}`).join('\n'))
            .catch((e: Error) => `(run log unreadable: ${e.message})`)
        : '';
      const out = sys
        .output()
        .split('\n')
        .filter((l) => !l.startsWith('[web]') && !/RouterExplorer|RoutesResolver|InstanceLoader/.test(l))
        .join('\n');
      return `--- run log\n${logs}\n--- npm start output\n${out.slice(-6000)}`;
    };
    const waitFor = async <T>(what: string, fn: () => Promise<T | null | false | undefined>, ms = 120_000): Promise<T> => {
      const end = Date.now() + ms;
      for (;;) {
        const v = await fn().catch(() => null);
        if (v) return v;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${await diagnosis()}`);
        await sleep(200);
      }
    };
    try {
      const api = (p: string, init: RequestInit = {}, token?: string) =>
        fetch(`${sys.apiUrl}${p}`, {
          ...init,
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers },
        });
      const signup = await api('/api/auth/signup', {
        method: 'POST',
        body: JSON.stringify({ email: 's@lab.test', password: 'correct horse', name: 'S' }),
      });
      const cookie = signup.headers.get('set-cookie')!.split(';')[0]!;
      const token = (await (await api('/api/tokens', { method: 'POST', body: '{"name":"s"}', headers: { cookie } })).json())
        .token as string;
      const run = await (
        await api('/api/runs', { method: 'POST', body: JSON.stringify({ name: 'supervised', ...smallRun(8) }) }, token)
      ).json();
      runId = run.id;

      // a live client as the dashboard is one: it subscribes on every connect, from the last step it holds
      const seen = new Set<number>();
      let reconnects = 0;
      socket = io(sys.apiUrl, { auth: { token }, transports: ['websocket'], reconnectionDelay: 200, reconnectionDelayMax: 1000 });
      socket.on('metrics', (e: { runId: string; step: number }) => e.runId === run.id && seen.add(e.step));
      socket.on('connect', () => {
        const afterStep = seen.size ? Math.max(...seen) : -1;
        void socket!
          .emitWithAck('subscribe', { runId: run.id, afterStep })
          .then((ack: { metrics?: { step: number }[] }) => ack.metrics?.forEach((m) => seen.add(m.step)))
          .catch(() => {}); // disconnected before the answer: the next connect subscribes again
      });
      socket.io.on('reconnect', () => reconnects++);
      await waitFor('live step 2', async () => seen.has(2));

      const apiPid = lastPid(sys.output(), 'api');
      process.kill(apiPid, 'SIGKILL');
      const apiKilledAt = Date.now();
      await waitFor(
        'the API restarted',
        async () => /api exited \(SIGKILL\); restarting/.test(sys.output()) && lastPid(sys.output(), 'api') !== apiPid,
      );
      await waitFor('/health 200 again', async () => (await api('/health')).status === 200, 60_000);
      const apiBackMs = Date.now() - apiKilledAt;
      await waitFor('the client reconnected', async () => reconnects > 0, 30_000);
      const reconnectsAfterApi = reconnects;

      const pgPid = lastPid(sys.output(), 'postgres');
      process.kill(pgPid, 'SIGKILL');
      const pgKilledAt = Date.now();
      await waitFor('Postgres restarted', async () => /postgres restarted \(pid \d+/.test(sys.output()), 60_000);
      await waitFor('/health 200 after the database restart', async () => (await api('/health')).status === 200, 60_000);
      const pgBackMs = Date.now() - pgKilledAt;

      const done = await waitFor(
        'the run to finish',
        async () =>
          ((r) => ['succeeded', 'failed', 'cancelled'].includes(r.status) && r)(await (await api(`/api/runs/${run.id}`, {}, token)).json()),
        180_000,
      );
      expect(done, await diagnosis()).toMatchObject({ status: 'succeeded', currentStep: 8 });
      await waitFor('the client to hold every step', async () => [1, 2, 3, 4, 5, 6, 7, 8].every((s) => seen.has(s)), 30_000).catch(
        (e: Error) => {
          throw new Error(`${e.message} (it holds ${[...seen].sort((a, b) => a - b).join(', ')}; ${reconnects} reconnects)`);
        },
      );
      const leases = await expectStepsOnceFromOneLease(db, run.id, 8);
      if (process.env.FAULTS_REPORT)
        appendFileSync(
          process.env.FAULTS_REPORT,
          `| API SIGKILL under npm start, then Postgres SIGKILL | both restarted, live clients catch up, nothing lost | API back (health 200) ${(apiBackMs / 1000).toFixed(1)} s after the kill, the client reconnected ${reconnectsAfterApi}×; Postgres back ${(pgBackMs / 1000).toFixed(1)} s after the kill; the client holds steps 1–8 (${reconnects} reconnects in all); 8/8 steps once; leases ${leases.join('→')} |\n`,
        );
    } finally {
      socket?.close();
      await db.$disconnect().catch(() => {});
      const pg = lastPid(sys.output(), 'postgres');
      sys.child.kill('SIGINT');
      expect(await sys.exited).toBe(0);
      expect(alive(pg)).toBe(false);
    }
  });
});
