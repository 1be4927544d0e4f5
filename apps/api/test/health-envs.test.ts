import type { INestApplication } from '@nestjs/common';
import { loadMigrations } from '@starpo/db';
import { freshDatabase, type TestDatabase } from '@starpo/db/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/bootstrap.js';

describe('API basics', () => {
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

  it('GET /health is 200 with the database up and migrations current', async () => {
    const res = await request(app.getHttpServer()).get('/health').expect(200);
    expect(res.body).toEqual({ status: 'ok', database: 'up', migrations: { applied: loadMigrations().length, pending: [] } });
  });

  it('GET /api/envs lists the built-in environments with JSON Schemas to anyone, and a team its own to a signed-in caller', async () => {
    const visitor = await request(app.getHttpServer()).get('/api/envs').expect(200);
    expect(visitor.body.map((e: { name: string }) => e.name)).toEqual(['sokoban', 'frozenlake', 'bandit', 'countdown']);
    const signup = await request(app.getHttpServer())
      .post('/api/auth/signup')
      .send({ email: 'envs@lab.test', password: 'correct horse', name: 'Envs', teamName: 'lab' })
      .expect(201);
    const cookie = String(signup.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
    const res = await request(app.getHttpServer()).get('/api/envs').set('Cookie', cookie).expect(200);
    expect(res.body.map((e: { name: string }) => e.name)).toEqual(['sokoban', 'frozenlake', 'bandit', 'countdown']);
    expect(res.body[0].configSchema.properties.numBoxes).toMatchObject({ type: 'integer', default: 1 });
  });

  it('GET /api/envs/:name/preview renders a seed; bad input gets clear errors', async () => {
    const ok = await request(app.getHttpServer()).get('/api/envs/sokoban/preview?seed=3').expect(200);
    expect(ok.body.observation.split('\n')).toHaveLength(6);
    expect(ok.body.snapshot.env).toBe('sokoban');
    const notFound = await request(app.getHttpServer()).get('/api/envs/chess/preview').expect(404);
    expect(notFound.body).toEqual({ error: 'not_found', message: 'unknown environment "chess"', details: [] });
    const badSeed = await request(app.getHttpServer()).get('/api/envs/sokoban/preview?seed=abc').expect(400);
    expect(badSeed.body.details).toEqual([{ path: 'seed', message: 'must be an integer' }]);
    const badConfig = await request(app.getHttpServer())
      .get('/api/envs/frozenlake/preview')
      .query({ config: JSON.stringify({ size: 99 }) })
      .expect(400);
    expect(badConfig.body).toMatchObject({ error: 'bad_request', details: [{ path: 'size' }] });
  });

  it('unknown routes are 404 in the common error shape', async () => {
    const res = await request(app.getHttpServer()).get('/nope').expect(404);
    expect(res.body).toMatchObject({ error: 'not_found' });
  });
  it('serves an OpenAPI document built from the shared contracts, and Swagger UI', async () => {
    const doc = (await request(app.getHttpServer()).get('/api/openapi.json').expect(200)).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/runs', '/api/runs/{id}/ingest/metrics', '/api/trajectories/{id}']),
    );
    const create = doc.paths['/api/runs'].post.requestBody.content['application/json'].schema;
    expect(create.properties).toHaveProperty('preset');
    expect(doc.paths['/api/runs'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['status', 'cursor', 'limit']),
    );
    const page = await request(app.getHttpServer()).get('/api/docs').expect(200);
    expect(page.text).toContain('swagger-ui-bundle.js');
    await request(app.getHttpServer()).get('/api/docs/assets/swagger-ui-bundle.js').expect(200);
    await request(app.getHttpServer()).get('/api/docs/init.js').expect(200);
  });
});

describe('/health on a database with pending migrations', () => {
  it('is 503 and names them', async () => {
    const db = await freshDatabase({ migrated: false });
    const app = await createApp({ databaseUrl: db.url, webOrigin: 'http://localhost:3000' }, { logger: false });
    await app.init();
    try {
      const res = await request(app.getHttpServer()).get('/health').expect(503);
      expect(res.body).toMatchObject({ error: 'migrations_pending', message: expect.stringContaining('20261130170000_init') });
    } finally {
      await app.close();
      await db.drop();
    }
  });
});
