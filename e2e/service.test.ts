import type { INestApplication } from '@nestjs/common';
import { createApp } from '@starpo/api/bootstrap';
import { freshDatabase, type TestDatabase } from '@starpo/db/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallRun as small } from './fault-runs.js';
import { ROOT } from './helpers.js';

describe('API + real worker processes on one Postgres', () => {
  let database: TestDatabase;
  let app: INestApplication;
  let auth: string;
  let token: string;
  let url: string;
  const workers: ChildProcess[] = [];
  const logs: string[] = [];
  const http = () => request(app.getHttpServer());

  function startWorker(name: string): ChildProcess {
    const child = spawn(process.execPath, [path.join(ROOT, 'apps/worker/dist/main.js')], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        STARPO_BACKEND: 'wasm',
        WORKER_NAME: name,
        WORKER_POLL_MS: '200',
        WORKER_HEARTBEAT_MS: '500',
        WORKER_STALE_MS: '3000',
        WORKER_SWEEP_MS: '500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => logs.push(`[${name}] ${d}`));
    child.stderr!.on('data', (d) => logs.push(`[${name}] ${d}`));
    workers.push(child);
    return child;
  }

  async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 120_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${logs.join('').slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const run = async (id: string) => (await http().get(`/api/runs/${id}`).set('Authorization', auth).expect(200)).body;
  const untilStatus = (id: string, statuses: string[], timeoutMs?: number) =>
    waitFor(`run ${id} to be ${statuses.join('|')}`, async () => ((r) => statuses.includes(r.status) && r)(await run(id)), timeoutMs);
  const untilStep = (id: string, step: number) =>
    waitFor(`run ${id} step ${step}`, async () => ((r) => r.currentStep >= step && r)(await run(id)));

  beforeAll(async () => {
    database = await freshDatabase();
    app = await createApp({ databaseUrl: database.url, webOrigin: 'http://localhost:3000' }, { logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const res = await http().post('/api/auth/signup').send({ email: 'a@lab.test', password: 'correct horse', name: 'A' }).expect(201);
    const cookie = String(res.headers['set-cookie']?.[0]).split(';')[0]!;
    token = (await http().post('/api/tokens').set('Cookie', cookie).send({ name: 'e2e' }).expect(201)).body.token;
    auth = `Bearer ${token}`;
    startWorker('w1');
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await app?.close();
    await database?.drop();
  });

  it('a launched run completes; its metrics arrive live; metrics, trajectories with turns and checkpoints are consistent', async () => {
    const created = (
      await http()
        .post('/api/runs')
        .set('Authorization', auth)
        .send({ name: 'complete', ...small(4) })
        .expect(201)
    ).body;
    const socket: Socket = io(url, { auth: { token }, transports: ['websocket'], reconnection: false });
    const live: number[] = [];
    socket.on('metrics', (e: { runId: string; step: number }) => e.runId === created.id && live.push(e.step));
    await new Promise((r) => socket.once('connect', r));
    expect(await socket.emitWithAck('subscribe', { runId: created.id })).toMatchObject({ ok: true });

    const done = await untilStatus(created.id, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'succeeded', currentStep: 4 });
    await waitFor('live metrics of every step', async () => [1, 2, 3, 4].every((s) => live.includes(s)), 10_000);
    socket.disconnect();

    const series = (
      await http().get(`/api/runs/${created.id}/metrics?keys=train/success,val/success`).set('Authorization', auth).expect(200)
    ).body;
    const train = series.find((s: { key: string }) => s.key === 'train/success');
    expect(train.points.map((p: { step: number }) => p.step)).toEqual([1, 2, 3, 4]);
    const trajs = (await http().get(`/api/runs/${created.id}/trajectories?split=train&limit=500`).set('Authorization', auth).expect(200))
      .body;
    expect(trajs.items).toHaveLength(4 * 2 * 4);
    const one = (await http().get(`/api/trajectories/${trajs.items[0].id}`).set('Authorization', auth).expect(200)).body;
    expect(one.turns[0]).toEqual(
      expect.objectContaining({ rawReply: expect.any(String), observation: expect.any(String), reward: expect.any(Number) }),
    );
    const ckpts = (await http().get(`/api/runs/${created.id}/checkpoints`).set('Authorization', auth).expect(200)).body;
    expect(ckpts[0].step).toBe(4);
    const file = await http()
      .get(`/api/checkpoints/${ckpts[0].id}/download`)
      .set('Authorization', auth)
      .buffer(true)
      .parse(binary)
      .expect(200);
    expect((file.body as Buffer).byteLength).toBe(ckpts[0].sizeBytes);
  });

  it('cancel while running stops at a phase boundary with a checkpoint; resume continues from it; clone starts anew', async () => {
    const created = (
      await http()
        .post('/api/runs')
        .set('Authorization', auth)
        .send({ name: 'long', ...small(200) })
        .expect(201)
    ).body;
    await untilStep(created.id, 2);
    await http().post(`/api/runs/${created.id}/cancel`).set('Authorization', auth).expect(202);
    const cancelled = await untilStatus(created.id, ['cancelled'], 60_000);
    expect(cancelled.stopReason).toBe('cancelled by A');
    const ckpts = (await http().get(`/api/runs/${created.id}/checkpoints`).set('Authorization', auth).expect(200)).body;
    expect(ckpts[0].step).toBe(cancelled.currentStep);

    await http().post(`/api/runs/${created.id}/resume`).set('Authorization', auth).expect(202);
    await untilStep(created.id, cancelled.currentStep + 2);
    expect((await run(created.id)).resumeCount).toBe(1);
    await http().post(`/api/runs/${created.id}/cancel`).set('Authorization', auth).expect(202);
    await untilStatus(created.id, ['cancelled'], 60_000);
    const steps = (
      await http().get(`/api/runs/${created.id}/metrics?keys=train/success`).set('Authorization', auth).expect(200)
    ).body[0].points.map((p: { step: number }) => p.step);
    expect(steps).toEqual(Array.from({ length: steps.length }, (_, i) => i + 1));

    const clone = (
      await http()
        .post(`/api/runs/${created.id}/clone`)
        .set('Authorization', auth)
        .send({ config: { training: { steps: 2 } } })
        .expect(201)
    ).body;
    expect(await untilStatus(clone.id, ['succeeded'])).toMatchObject({ currentStep: 2, clonedFromId: created.id });
  });

  it('a SIGKILLed worker’s run is requeued and finished by another worker, every step present exactly once', async () => {
    const created = (
      await http()
        .post('/api/runs')
        .set('Authorization', auth)
        .send({ name: 'killed', ...small(10) })
        .expect(201)
    ).body;
    await untilStep(created.id, 3);
    workers[0]!.kill('SIGKILL');
    startWorker('w2');
    const done = await untilStatus(created.id, ['succeeded', 'failed'], 120_000);
    expect(done).toMatchObject({ status: 'succeeded', currentStep: 10 });
    expect(done.resumeCount).toBeGreaterThanOrEqual(1);
    const series = (await http().get(`/api/runs/${created.id}/metrics?keys=train/success`).set('Authorization', auth).expect(200)).body;
    expect(series[0].points.map((p: { step: number }) => p.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const trajs = (await http().get(`/api/runs/${created.id}/trajectories?split=train&limit=500`).set('Authorization', auth).expect(200))
      .body.items;
    const perStep = new Map<number, number>();
    for (const t of trajs as { step: number }[]) perStep.set(t.step, (perStep.get(t.step) ?? 0) + 1);
    expect([...perStep.entries()].sort((a, b) => a[0] - b[0])).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1, 8]));
  });

  it('a queued pretrain job registers a base model that a training run then starts from', async () => {
    const job = (
      await http()
        .post('/api/base-models')
        .set('Authorization', auth)
        .send({ name: 'bandit-nano', env: 'bandit', size: 'nano', dialogues: 24, epochs: 1, valSize: 4 })
        .expect(202)
    ).body;
    expect(job).toMatchObject({ kind: 'pretrain', status: 'queued' });
    await http().post('/api/base-models').set('Authorization', auth).send({ name: 'bandit-nano', env: 'bandit' }).expect(409);
    expect(
      (await http().post('/api/base-models').set('Authorization', auth).send({ name: 'x y', env: 'chess' }).expect(400)).body.details
        .map((d: { path: string }) => d.path)
        .sort(),
    ).toEqual(['env', 'name']);
    await untilStatus(job.id, ['succeeded'], 150_000);
    const models = (await http().get('/api/base-models').set('Authorization', auth).expect(200)).body;
    const mine = models.find((m: { name: string }) => m.name === 'bandit-nano');
    expect(mine).toMatchObject({ source: 'pretrain' });
    expect(mine.metrics.formatRate).toBeGreaterThanOrEqual(0);

    const spec = small(2);
    const created = (
      await http()
        .post('/api/runs')
        .set('Authorization', auth)
        .send({ ...spec, name: 'from-base', config: { ...spec.config, model: { base: 'bandit-nano' } } })
        .expect(201)
    ).body;
    expect(await untilStatus(created.id, ['succeeded', 'failed'])).toMatchObject({ status: 'succeeded', currentStep: 2 });
  });
});

function binary(res: NodeJS.ReadableStream, cb: (err: Error | null, body: Buffer) => void): void {
  const parts: Buffer[] = [];
  res.on('data', (c: Buffer) => parts.push(c));
  res.on('end', () => cb(null, Buffer.concat(parts)));
}
