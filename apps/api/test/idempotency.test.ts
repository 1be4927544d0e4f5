import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

describe('POST /api/runs with an Idempotency-Key', () => {
  let t: TestApi;
  let owner: TestUser;
  const body = { name: 'retried', preset: 'quick-cpu', config: { env: { name: 'bandit' }, training: { steps: 2 } } };
  const post = (key?: string, auth = owner.auth) => {
    const req = t.http.post('/api/runs').set('Authorization', auth);
    return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body);
  };
  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
  });
  afterAll(() => t.close());

  it('the same key returns the first run instead of creating another, even when the retries race', async () => {
    const first = await post('script-42').expect(201);
    const again = await post('script-42').expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const racing = await Promise.all([post('race-1'), post('race-1'), post('race-1')]);
    expect(new Set(racing.map((r) => r.body.id)).size).toBe(1);
    expect(racing.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(await t.db.run.count()).toBe(2);
    // without a key, or with another one, each request is a run of its own
    await post().expect(201);
    await post('script-43').expect(201);
    expect(await t.db.run.count()).toBe(4);
  });

  it('a key is remembered for 24 h, then creates a new run', async () => {
    const first = await post('nightly').expect(201);
    await t.db.runIdempotencyKey.update({
      where: { teamId_key: { teamId: owner.teamId, key: 'nightly' } },
      data: { createdAt: new Date(Date.now() - 25 * 3600_000) },
    });
    const next = await post('nightly').expect(201);
    expect(next.body.id).not.toBe(first.body.id);
    expect((await post('nightly').expect(200)).body.id).toBe(next.body.id);
  });

  it('the OpenAPI document lists the header', async () => {
    const doc = (await t.http.get('/api/openapi.json').expect(200)).body;
    expect(doc.paths['/api/runs'].post.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
    );
  });

  it('a key that is not 1 to 255 visible characters is a 400 naming the header', async () => {
    const res = await post('x'.repeat(256)).expect(400);
    expect(res.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'Idempotency-Key' }] });
  });
});
