import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_ORIGIN, joinAs, otherTeamUser, signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

describe('team access', () => {
  let t: TestApi;
  let owner: TestUser;
  beforeAll(async () => {
    t = await startTestApi({ authRateLimit: 50 });
  });
  afterAll(() => t.close());

  it('the first account creates the team as owner; later ones need an invite', async () => {
    expect((await t.http.get('/api/auth/setup').expect(200)).body).toEqual({ needsSetup: true });
    await t.http.get('/api/runs').expect(401);
    owner = await signupOwner(t);
    expect((await t.http.get('/api/auth/setup').expect(200)).body).toEqual({ needsSetup: false });
    const me = await t.http.get('/api/auth/me').set('Cookie', owner.cookie).expect(200);
    expect(me.body).toMatchObject({ user: { email: 'owner@lab.test' }, team: { name: 'lab' }, role: 'owner' });
    // the dashboard's question: the same answer, or null (not a 401) when signed out
    expect((await t.http.get('/api/auth/session').set('Cookie', owner.cookie).expect(200)).body).toEqual({ me: me.body });
    expect((await t.http.get('/api/auth/session').expect(200)).body).toEqual({ me: null });
    expect((await t.http.get('/api/auth/session').set('Authorization', 'Bearer stp_forged').expect(200)).body).toEqual({ me: null });
    const stored = await t.db.user.findUniqueOrThrow({ where: { email: 'owner@lab.test' } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);

    const noInvite = await t.http.post('/api/auth/signup').send({ email: 'x@lab.test', password: 'long enough', name: 'X' }).expect(403);
    expect(noInvite.body.error).toBe('forbidden');
    expect(noInvite.body.message).toContain('POST /api/auth/login'); // docs/api.md's signup run twice says what to do
    const badInvite = await t.http
      .post('/api/auth/signup')
      .send({ email: 'x@lab.test', password: 'long enough', name: 'X', invite: 'inv_nope-nope-nope' });
    expect(badInvite.status).toBe(400);
    expect(badInvite.body.details[0].path).toBe('invite');
    const dup = await t.http.post('/api/auth/signup').send({ email: 'owner@lab.test', password: 'long enough', name: 'X' }).expect(409);
    expect(dup.body.error).toBe('conflict');
    const weak = await t.http.post('/api/auth/signup').send({ email: 'not-an-email', password: 'short', name: '' }).expect(400);
    expect(weak.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['email', 'name', 'password']);
  });

  it('session cookies are HTTP-only and SameSite; login and logout work; wrong passwords are 401', async () => {
    const res = await t.http.post('/api/auth/login').send({ email: 'OWNER@lab.test', password: 'correct horse' }).expect(200);
    const cookie = String(res.headers['set-cookie']?.[0]);
    expect(cookie).toMatch(/starpo_session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const session = cookie.split(';')[0]!;
    await t.http.get('/api/auth/me').set('Cookie', session).expect(200);
    await t.http.post('/api/auth/logout').set('Cookie', session).expect(204);
    await t.http.get('/api/auth/me').set('Cookie', session).expect(401);
    const wrong = await t.http.post('/api/auth/login').send({ email: 'owner@lab.test', password: 'wrong horse' }).expect(401);
    expect(wrong.body).toMatchObject({ error: 'unauthorized', message: 'wrong email or password' });
    await t.http.post('/api/auth/login').send({ email: 'nobody@lab.test', password: 'wrong horse' }).expect(401);
  });

  it('the access matrix: no auth 401, revoked token 401, viewer writes 403, member launches, other team 404', async () => {
    const viewer = await joinAs(t, owner, 'viewer', 'viewer@lab.test');
    const member = await joinAs(t, owner, 'member', 'member@lab.test');
    const rival = await otherTeamUser(t);

    const run = (await t.http.post('/api/runs').set('Authorization', member.auth).send({ preset: 'quick-cpu' }).expect(201)).body;
    expect((await t.http.get(`/api/runs/${run.id}`).expect(401)).body).toMatchObject({ error: 'unauthorized', message: /^sign in/ });
    const forged = await t.http.get(`/api/runs/${run.id}`).set('Authorization', 'Bearer stp_forged').expect(401);
    expect(forged.body).toMatchObject({ error: 'invalid_token', message: /^this API token is not valid/ });
    await t.http.get(`/api/runs/${run.id}`).set('Authorization', viewer.auth).expect(200);
    const denied = await t.http.post('/api/runs').set('Authorization', viewer.auth).send({ preset: 'quick-cpu' }).expect(403);
    expect(denied.body).toMatchObject({ error: 'forbidden' });
    await t.http.post(`/api/runs/${run.id}/cancel`).set('Authorization', viewer.auth).expect(403);
    await t.http.post('/api/team/invites').set('Authorization', member.auth).send({ role: 'member' }).expect(403);

    await t.http.get(`/api/runs/${run.id}`).set('Authorization', rival.auth).expect(404);
    await t.http.get(`/api/runs/${run.id}/metrics`).set('Authorization', rival.auth).expect(404);
    await t.http.post(`/api/runs/${run.id}/cancel`).set('Authorization', rival.auth).expect(404);
    await t.http.delete(`/api/runs/${run.id}`).set('Authorization', rival.auth).expect(404);
    expect((await t.http.get('/api/runs').set('Authorization', rival.auth).expect(200)).body.items).toEqual([]);

    // a member may not cancel or delete another member's run; the team owner may
    const other = await joinAs(t, owner, 'member', 'member2@lab.test');
    await t.http.post(`/api/runs/${run.id}/cancel`).set('Authorization', other.auth).expect(403);
    await t.http.post(`/api/runs/${run.id}/cancel`).set('Authorization', owner.auth).expect(202);
    await t.http.delete(`/api/runs/${run.id}`).set('Authorization', other.auth).expect(403);
    await t.http.delete(`/api/runs/${run.id}`).set('Authorization', owner.auth).expect(204);

    // tokens: listed without their secret, revocable
    const list = await t.http.get('/api/tokens').set('Authorization', member.auth).expect(200);
    expect(list.body).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(member.token);
    await t.http.delete(`/api/tokens/${list.body[0].id}`).set('Authorization', member.auth).expect(204);
    // a revoked token is told so, with the token's name and what to do, not asked to sign in
    const revoked = await t.http.get('/api/runs').set('Authorization', member.auth).expect(401);
    const { revokedAt } = await t.db.apiToken.findUniqueOrThrow({ where: { id: list.body[0].id } });
    expect(revoked.body).toEqual({
      error: 'token_revoked',
      message: `this API token ("${list.body[0].name}") was revoked on ${revokedAt!.toISOString().slice(0, 10)}; create a new one in Settings → API tokens`,
      details: [],
    });
    expect((await t.db.apiToken.findFirstOrThrow({ where: { id: list.body[0].id } })).tokenHash).not.toContain(member.token);

    const members = await t.http.get('/api/team/members').set('Authorization', viewer.auth).expect(200);
    expect(members.body.map((m: { role: string }) => m.role)).toEqual(['owner', 'viewer', 'member', 'member']);
    await t.http.patch(`/api/team/members/${viewer.userId}`).set('Authorization', owner.auth).send({ role: 'member' }).expect(200);
    await t.http.post('/api/runs').set('Authorization', viewer.auth).send({ preset: 'quick-cpu' }).expect(201);
    await t.http.patch(`/api/team/members/${owner.userId}`).set('Authorization', owner.auth).send({ role: 'viewer' }).expect(409);
  });

  it('owners list pending invites and revoke them; a revoked invite no longer joins', async () => {
    const a = (
      await t.http.post('/api/team/invites').set('Authorization', owner.auth).send({ role: 'viewer', expiresInHours: 2 }).expect(201)
    ).body;
    const b = (await t.http.post('/api/team/invites').set('Authorization', owner.auth).send({ role: 'member' }).expect(201)).body;
    const pending = (await t.http.get('/api/team/invites').set('Authorization', owner.auth).expect(200)).body;
    expect(pending.map((i: { id: string }) => i.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(pending.find((i: { id: string }) => i.id === a.id)).toMatchObject({ role: 'viewer', expired: false, expiresAt: a.expiresAt });
    expect(JSON.stringify(pending)).not.toContain(a.token);
    const member = await joinAs(t, owner, 'member', 'invitee-lister@lab.test');
    await t.http.get('/api/team/invites').set('Authorization', member.auth).expect(403);
    await t.http.delete(`/api/team/invites/${a.id}`).set('Authorization', member.auth).expect(403);

    await t.http.delete(`/api/team/invites/${a.id}`).set('Authorization', owner.auth).expect(204);
    await t.http.delete(`/api/team/invites/${a.id}`).set('Authorization', owner.auth).expect(404);
    await t.http.delete('/api/team/invites/not-a-uuid').set('Authorization', owner.auth).expect(404);
    const late = await t.http
      .post('/api/auth/signup')
      .send({ email: 'late@lab.test', password: 'long enough', name: 'Late', invite: a.token });
    expect(late.status).toBe(400);
    // an accepted invite leaves the pending list
    await t.http.post('/api/auth/signup').send({ email: 'b@lab.test', password: 'long enough', name: 'B', invite: b.token }).expect(201);
    const left = (await t.http.get('/api/team/invites').set('Authorization', owner.auth).expect(200)).body;
    expect(left.map((i: { id: string }) => i.id)).not.toContain(a.id);
    expect(left.map((i: { id: string }) => i.id)).not.toContain(b.id);
  });

  it('sends security headers and allows CORS only from the dashboard origin', async () => {
    const res = await t.http.get('/health').set('Origin', WEB_ORIGIN).expect(200);
    expect(res.headers['access-control-allow-origin']).toBe(WEB_ORIGIN);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
    const evil = await t.http.get('/health').set('Origin', 'https://evil.example').expect(200);
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('login rate limit', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi();
    await signupOwner(t);
  });
  afterAll(() => t.close());

  it('answers 429 after 10 logins a minute from one address', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 12; i++)
      codes.push((await t.http.post('/api/auth/login').send({ email: 'owner@lab.test', password: 'wrong horse' })).status);
    expect(codes.slice(0, 10).every((c) => c === 401)).toBe(true);
    expect(codes.slice(10)).toEqual([429, 429]);
    const res = await t.http.post('/api/auth/login').send({ email: 'owner@lab.test', password: 'correct horse' }).expect(429);
    expect(res.body.error).toBe('too_many_requests');
  });
});

describe('ingestion rate limit', () => {
  let t: TestApi;
  let owner: TestUser;
  beforeAll(async () => {
    t = await startTestApi({ ingestRateLimit: 3 });
    owner = await signupOwner(t);
  });
  afterAll(() => t.close());

  it('answers 429 past the per-minute ingestion budget, without touching the login budget', async () => {
    const run = (await t.http.post('/api/runs').set('Authorization', owner.auth).send({ external: true, config: {} }).expect(201)).body;
    const send = () =>
      t.http
        .post(`/api/runs/${run.id}/ingest/metrics`)
        .set('Authorization', owner.auth)
        .send({ points: [{ key: 'k', step: 1, value: 1 }] });
    expect([(await send()).status, (await send()).status, (await send()).status, (await send()).status]).toEqual([200, 200, 200, 429]);
    await t.http.post('/api/auth/login').send({ email: 'owner@lab.test', password: 'correct horse' }).expect(200);
  });

  it('members edit, cancel, resume and delete only their own runs; team owners and administrators any, named in the stop reason', async () => {
    const alice = await joinAs(t, owner, 'member', 'alice@lab.test');
    const bob = await joinAs(t, owner, 'member', 'bob@lab.test');
    const olga = await joinAs(t, owner, 'owner', 'olga@lab.test'); // a team owner, not an administrator
    const ada = await joinAs(t, owner, 'member', 'ada@lab.test');
    await t.db.user.update({ where: { id: olga.userId }, data: { name: 'Olga' } });
    await t.db.user.update({ where: { id: ada.userId }, data: { name: '  ', isAdmin: true } }); // no name: her email stands in
    const as = (u: TestUser) => ({
      patch: (path: string, body: object) => t.http.patch(path).set('Authorization', u.auth).send(body),
      post: (path: string) => t.http.post(path).set('Authorization', u.auth),
      del: (path: string) => t.http.delete(path).set('Authorization', u.auth),
    });
    const run = (
      await t.http.post('/api/runs').set('Authorization', alice.auth).send({ name: 'alice-run', preset: 'quick-cpu' }).expect(201)
    ).body;
    await t.db.run.update({ where: { id: run.id }, data: { status: 'running' } });

    // another member: 403 in the error shape, and nothing changes
    const edit = await as(bob).patch(`/api/runs/${run.id}`, { notes: 'bob was here' }).expect(403);
    expect(edit.body).toEqual({
      error: 'forbidden',
      message: "only the run's creator, a team owner or an administrator may edit this run",
      details: [],
    });
    expect((await as(bob).post(`/api/runs/${run.id}/cancel`).expect(403)).body.message).toContain('may cancel this run');
    await as(bob).post(`/api/runs/${run.id}/resume`).expect(403);
    await as(bob).del(`/api/runs/${run.id}`).expect(403);
    expect(await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      notes: '',
      cancelRequestedAt: null,
      stopReason: null,
    });
    await as(bob).post(`/api/runs/${run.id}/clone`).expect(201); // a clone is bob's own run

    // the creator edits; an administrator (a member by role) edits too
    await as(alice).patch(`/api/runs/${run.id}`, { notes: 'mine' }).expect(200);
    expect(
      (
        await as(ada)
          .patch(`/api/runs/${run.id}`, { tags: ['reviewed'] })
          .expect(200)
      ).body,
    ).toMatchObject({ notes: 'mine', tags: ['reviewed'] });

    // a team owner cancels it: the stop reason and the run's log name her
    expect((await as(olga).post(`/api/runs/${run.id}/cancel`).expect(202)).body).toMatchObject({
      cancelRequested: true,
      stopReason: 'cancelled by Olga',
    });
    const logs = (await t.http.get(`/api/runs/${run.id}/logs`).set('Authorization', bob.auth).expect(200)).body as { message: string }[];
    expect(logs.map((l) => l.message)).toContain('cancelled by Olga: cancel requested');

    // a queued run cancelled by an administrator without a name: her email
    const queued = (await t.http.post('/api/runs').set('Authorization', alice.auth).send({ preset: 'quick-cpu' }).expect(201)).body;
    expect((await as(ada).post(`/api/runs/${queued.id}/cancel`).expect(202)).body).toMatchObject({
      status: 'cancelled',
      stopReason: 'cancelled by ada@lab.test',
    });
    await as(bob).post(`/api/runs/${queued.id}/resume`).expect(403);
    await as(alice).post(`/api/runs/${queued.id}/resume`).expect(202);
    await as(bob).del(`/api/runs/${queued.id}`).expect(403);
    await as(olga).del(`/api/runs/${queued.id}`).expect(204);
  });
});
