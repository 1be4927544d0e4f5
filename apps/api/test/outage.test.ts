import { createDb, migrate, publishRunNotice, upsertMetrics } from '@starpo/db';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '@starpo/db/embedded';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { io, type Socket } from 'socket.io-client';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/bootstrap.js';

/** A Postgres server of its own, so the test can stop and restart it under a live API. */
describe('database outage', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-outage-'));
  chmodSync(dir, 0o755);
  let pg: EmbeddedDatabase;
  let app: INestApplication;
  let token: string;
  let runId: string;
  const start = (port?: number) => startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), port });

  beforeAll(async () => {
    pg = await start();
    await migrate(pg.url);
    app = await createApp({ databaseUrl: pg.url, webOrigin: 'http://localhost:3000' }, { logger: false });
    await app.listen(0, '127.0.0.1');
    const res = await request(app.getHttpServer())
      .post('/api/auth/signup')
      .send({ email: 'o@lab.test', password: 'correct horse', name: 'O' })
      .expect(201);
    const cookie = String(res.headers['set-cookie']?.[0]).split(';')[0]!;
    token = (await request(app.getHttpServer()).post('/api/tokens').set('Cookie', cookie).send({ name: 't' }).expect(201)).body.token;
    runId = (
      await request(app.getHttpServer()).post('/api/runs').set('Authorization', `Bearer ${token}`).send({ preset: 'quick-cpu' }).expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await app?.close().catch(() => {});
    await pg?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 while the database is down and recovers by itself when it returns, with the data intact', async () => {
    await pg.stop();
    const health = await request(app.getHttpServer()).get('/health').expect(503);
    // the body tells a caller nothing about the server: no driver message, host or port
    expect(health.body).toEqual({ error: 'database_unavailable', message: 'the database is unreachable', details: [] });
    expect(JSON.stringify(health.body)).not.toContain(String(pg.port));
    const runs = await request(app.getHttpServer()).get('/api/runs').set('Authorization', `Bearer ${token}`).expect(503);
    expect(runs.body).toMatchObject({ error: 'database_unavailable' });

    pg = await start(pg.port);
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await request(app.getHttpServer()).get('/health')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
    const list = await request(app.getHttpServer()).get('/api/runs').set('Authorization', `Bearer ${token}`).expect(200);
    expect(list.body.items).toHaveLength(1);
  });

  it('a live client rides out an outage: its handshake and its subscribe are retried, then it catches up', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const until = async (what: string, ok: () => boolean, ms = 30_000) => {
      for (const end = Date.now() + ms; !ok(); await sleep(50)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    };
    const steps = new Set<number>();
    const acks: { ok: boolean; error?: string }[] = [];
    const errors: string[] = [];
    await pg.stop();
    const { port } = app.getHttpServer().address() as { port: number };
    // the dashboard's pattern: subscribe on every connect, from the last step held
    const socket: Socket = io(`http://127.0.0.1:${port}`, {
      auth: { token },
      transports: ['websocket'],
      reconnectionDelay: 100,
      reconnectionDelayMax: 500,
    });
    const subscribe = () =>
      void socket
        .emitWithAck('subscribe', { runId, afterStep: steps.size ? Math.max(...steps) : -1 })
        .then((ack: { ok: boolean; error?: string; metrics?: { step: number }[] }) => {
          acks.push(ack);
          ack.metrics?.forEach((m) => steps.add(m.step));
        })
        .catch(() => {}); // disconnected before the answer: the next connect subscribes again
    socket.on('connect', subscribe);
    socket.on('connect_error', (e) => errors.push(e.message));
    socket.on('metrics', (e: { step: number }) => steps.add(e.step));
    const db = createDb(pg.url);
    try {
      // handshake with the database down: retried (a refusal from the server would end the client's attempts)
      await sleep(1500);
      expect(socket.connected).toBe(false);
      expect(socket.active).toBe(true);
      pg = await start(pg.port);
      await until('connected and subscribed', () => acks.some((a) => a.ok));
      await upsertMetrics(db, runId, 1, { 'train/success': 0.1 });
      await publishRunNotice(db, { run: runId, type: 'metrics', step: 1 });
      await until('live step 1', () => steps.has(1));

      // subscribe with the database down: answered "unavailable", then the client reconnects and subscribes again
      await pg.stop();
      const failed = (await socket.emitWithAck('subscribe', { runId, afterStep: 1 })) as { ok: boolean; error?: string };
      expect(failed).toMatchObject({ ok: false, error: 'unavailable' });
      pg = await start(pg.port);
      // written while the client was away: it gets them from the catch-up of its new subscription
      await upsertMetrics(db, runId, 2, { 'train/success': 0.2 });
      const before = acks.filter((a) => a.ok).length;
      await until('subscribed again', () => acks.filter((a) => a.ok).length > before);
      await until('step 2 caught up', () => steps.has(2));
      expect(errors).toEqual([]);
    } finally {
      socket.close();
      await db.$disconnect();
    }
  });
});
