import type { INestApplication } from '@nestjs/common';
import { createDb, upsertMetrics } from '@starpo/db';
import { freshDatabase, type TestDatabase } from '@starpo/db/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/bootstrap.js';

describe('runs over REST', () => {
  let db: TestDatabase;
  let app: INestApplication;
  beforeAll(async () => {
    db = await freshDatabase();
    app = await createApp({ databaseUrl: db.url, webOrigin: 'http://localhost:3000' }, { logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });

  it('creates a queued run from a preset plus overrides, then reads and lists it', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/runs')
      .send({ name: 'first', preset: 'quick-cpu', config: { env: { name: 'frozenlake' }, training: { steps: 3 } }, tags: ['smoke'] })
      .expect(201);
    expect(res.body).toMatchObject({
      name: 'first',
      status: 'queued',
      environment: 'frozenlake',
      algorithm: 'grpo',
      preset: 'quick-cpu',
      totalSteps: 3,
      tags: ['smoke'],
    });
    const one = await request(app.getHttpServer()).get(`/api/runs/${res.body.id}`).expect(200);
    expect(one.body.config).toMatchObject({ env: { name: 'frozenlake' }, training: { steps: 3 }, rollout: { groupSize: 8 } });
    const list = await request(app.getHttpServer()).get('/api/runs').expect(200);
    expect(list.body.map((r: { id: string }) => r.id)).toContain(res.body.id);
  });

  it('rejects a bad config with 400 listing every wrong field, and stores nothing', async () => {
    const before = (await request(app.getHttpServer()).get('/api/runs')).body.length;
    const res = await request(app.getHttpServer())
      .post('/api/runs')
      .send({ preset: 'starpo-ppo', config: { ppo: { clipRatioLow: 'x' }, rollout: { envGroups: 0 }, env: { name: 'chess' } } })
      .expect(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining(['ppo.clipRatioLow', 'rollout.envGroups', 'env.name']),
    );
    await request(app.getHttpServer()).post('/api/runs').send({ preset: 'nope' }).expect(400);
    await request(app.getHttpServer()).post('/api/runs').send({ bogus: 1 }).expect(400);
    await request(app.getHttpServer()).post('/api/runs').set('content-type', 'application/json').send('{not json').expect(400);
    expect((await request(app.getHttpServer()).get('/api/runs')).body).toHaveLength(before);
  });

  it('404 for unknown or malformed run ids', async () => {
    await request(app.getHttpServer()).get('/api/runs/00000000-0000-0000-0000-000000000000').expect(404);
    const res = await request(app.getHttpServer()).get('/api/runs/not-a-uuid').expect(404);
    expect(res.body).toMatchObject({ error: 'not_found' });
  });

  it('413 for an oversized body', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/runs')
      .send({ notes: 'x'.repeat(2_000_000) })
      .expect(413);
    expect(res.body.error).toBe('payload_too_large');
  });

  it('serves metric series and the latest values in the run summary', async () => {
    const created = (await request(app.getHttpServer()).post('/api/runs').send({ preset: 'quick-cpu' }).expect(201)).body;
    const prisma = createDb(db.url);
    await upsertMetrics(prisma, created.id, 1, { 'val/success': 0.25, 'train/success': 0.1 });
    await upsertMetrics(prisma, created.id, 2, { 'val/success': 0.125, 'train/success': 0.2 });
    await upsertMetrics(prisma, created.id, 2, { 'train/success': 0.3 }); // idempotent upsert
    await prisma.$disconnect();
    const series = (await request(app.getHttpServer()).get(`/api/runs/${created.id}/metrics?keys=train/success`).expect(200)).body;
    expect(series).toEqual([
      {
        key: 'train/success',
        points: [expect.objectContaining({ step: 1, value: 0.1 }), expect.objectContaining({ step: 2, value: 0.3 })],
      },
    ]);
    const summary = (await request(app.getHttpServer()).get(`/api/runs/${created.id}`).expect(200)).body;
    expect(summary.latest).toMatchObject({ 'train/success': 0.3, 'val/success': 0.125 });
    expect(summary.bestValSuccess).toBe(0.25);
  });
});
