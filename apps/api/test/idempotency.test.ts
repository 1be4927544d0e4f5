import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

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
    await t.db.runIdempotencyKey.updateMany({ where: { key: 'nightly' }, data: { createdAt: new Date(Date.now() - 25 * 3600_000) } });
    const next = await post('nightly').expect(201);
    expect(next.body.id).not.toBe(first.body.id);
    expect((await post('nightly').expect(200)).body.id).toBe(next.body.id);
  });

  it('the same key with a different body is a 422 naming the conflict, and creates nothing', async () => {
    const first = await post('edited').expect(201);
    const before = await t.db.run.count();
    const res = await t.http
      .post('/api/runs')
      .set('Authorization', owner.auth)
      .set('Idempotency-Key', 'edited')
      .send({ ...body, name: 'another run' })
      .expect(422);
    expect(res.body).toEqual({
      error: 'idempotency_key_reused',
      message: expect.stringMatching(/different request body/),
      details: [{ path: 'Idempotency-Key', message: expect.stringMatching(/different request body/) }],
    });
    expect(await t.db.run.count()).toBe(before);
    // the first request sent again is still a replay
    expect((await post('edited').expect(200)).body.id).toBe(first.body.id);
  });

  it("a key is its caller's: another member, or the same user signed in instead of using a token, gets a run of its own", async () => {
    const member = await joinAs(t, owner, 'member', 'member@lab.test');
    const members = await post('shared', member.auth).expect(201);
    const owners = await post('shared').expect(201);
    expect(owners.body.id).not.toBe(members.body.id);
    const viaSession = await t.http.post('/api/runs').set('Cookie', owner.cookie).set('Idempotency-Key', 'shared').send(body).expect(201);
    expect([members.body.id, owners.body.id]).not.toContain(viaSession.body.id);
    // each caller's retry still gets its own run back
    expect((await post('shared', member.auth).expect(200)).body.id).toBe(members.body.id);
    expect((await post('shared').expect(200)).body.id).toBe(owners.body.id);
    const again = await t.http.post('/api/runs').set('Cookie', owner.cookie).set('Idempotency-Key', 'shared').send(body).expect(200);
    expect(again.body.id).toBe(viaSession.body.id);
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
