import { migrate } from '@starpo/db';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '@starpo/db/embedded';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
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
  const start = (port?: number) => startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), port });

  beforeAll(async () => {
    pg = await start();
    await migrate(pg.url);
    app = await createApp({ databaseUrl: pg.url, webOrigin: 'http://localhost:3000' }, { logger: false });
    await app.init();
    const res = await request(app.getHttpServer())
      .post('/api/auth/signup')
      .send({ email: 'o@lab.test', password: 'correct horse', name: 'O' })
      .expect(201);
    const cookie = String(res.headers['set-cookie']?.[0]).split(';')[0]!;
    token = (await request(app.getHttpServer()).post('/api/tokens').set('Cookie', cookie).send({ name: 't' }).expect(201)).body.token;
    await request(app.getHttpServer()).post('/api/runs').set('Authorization', `Bearer ${token}`).send({ preset: 'quick-cpu' }).expect(201);
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
});
