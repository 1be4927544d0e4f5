import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, signupOwner, startTestApi, WEB_ORIGIN, type TestApi, type TestUser } from './helpers.js';

/** Several teams in one deployment, all through the API: creation, joining, switching and isolation. */
describe('teams', () => {
  let t: TestApi;
  let admin: TestUser;
  let member: TestUser;
  let teamB: string;
  let runA: string;
  let runB: string;
  /** A cookie-authenticated call from the dashboard's origin. */
  const asSession = (u: TestUser) => ({
    get: (p: string) => t.http.get(p).set('Cookie', u.cookie),
    post: (p: string, body: object) => t.http.post(p).set('Cookie', u.cookie).set('Origin', WEB_ORIGIN).send(body),
  });

  beforeAll(async () => {
    t = await startTestApi();
    admin = await signupOwner(t);
    member = await joinAs(t, admin, 'member', 'member@lab.test');
    runA = (await t.http.post('/api/runs').set('Authorization', admin.auth).send({ name: 'in A', preset: 'quick-cpu' }).expect(201)).body
      .id;
  });
  afterAll(() => t.close());

  it('the first account administers the deployment; only an administrator creates a team, and owns it', async () => {
    const me = (await asSession(admin).get('/api/auth/me').expect(200)).body;
    expect(me).toMatchObject({ admin: true, role: 'owner', teams: [{ id: admin.teamId, name: 'lab', role: 'owner' }] });
    expect((await asSession(member).get('/api/auth/me').expect(200)).body.admin).toBe(false);

    await t.http.post('/api/teams').set('Authorization', member.auth).send({ name: 'mine' }).expect(403);
    await t.http.post('/api/teams').set('Authorization', admin.auth).send({ name: '' }).expect(400);
    teamB = (await t.http.post('/api/teams').set('Authorization', admin.auth).send({ name: 'B' }).expect(201)).body.id;
    const teams = (await t.http.get('/api/teams').set('Authorization', admin.auth).expect(200)).body;
    expect(teams).toEqual([
      { id: admin.teamId, name: 'lab', role: 'owner' },
      { id: teamB, name: 'B', role: 'owner' },
    ]);
    // a second signup without an invite is still refused
    await t.http.post('/api/auth/signup').send({ email: 'x@lab.test', password: 'correct horse', name: 'X' }).expect(403);
  });

  it('a session switches team; what it sees and writes follows the team', async () => {
    const s = asSession(admin);
    const switched = (await s.post('/api/auth/team', { teamId: teamB }).expect(200)).body;
    expect(switched).toMatchObject({ team: { id: teamB, name: 'B' }, role: 'owner' });
    expect((await s.get('/api/auth/me').expect(200)).body.team.id).toBe(teamB);
    runB = (await s.post('/api/runs', { name: 'in B', preset: 'quick-cpu' }).expect(201)).body.id;
    expect((await s.get('/api/runs').expect(200)).body.items.map((r: { name: string }) => r.name)).toEqual(['in B']);
    await s.get(`/api/runs/${runA}`).expect(404);
    // the admin's token was made in team A and stays there
    expect(
      (await t.http.get('/api/runs').set('Authorization', admin.auth).expect(200)).body.items.map((r: { id: string }) => r.id),
    ).toEqual([runA]);
    await t.http.get(`/api/runs/${runB}`).set('Authorization', admin.auth).expect(404);
    await t.http.post('/api/auth/team').set('Authorization', admin.auth).send({ teamId: teamB }).expect(409);

    await s.post('/api/auth/team', { teamId: admin.teamId }).expect(200);
    expect((await s.get('/api/runs').expect(200)).body.items.map((r: { id: string }) => r.id)).toEqual([runA]);
    // a team the user is not in, and a malformed id
    await asSession(member).post('/api/auth/team', { teamId: teamB }).expect(404);
    await asSession(member).post('/api/auth/team', { teamId: 'B' }).expect(400);
  });

  it('a member of one team joins another by invite, switches to it, and keeps the roles apart', async () => {
    await asSession(admin).post('/api/auth/team', { teamId: teamB }).expect(200);
    const invite = (await asSession(admin).post('/api/team/invites', { role: 'viewer' }).expect(201)).body.token;
    await asSession(member).post('/api/team/join', { invite: 'inv_not-a-real-invite' }).expect(400);
    const joined = (await asSession(member).post('/api/team/join', { invite }).expect(200)).body;
    expect(joined).toMatchObject({ team: { id: teamB }, role: 'viewer' });
    expect(joined.teams.map((x: { role: string }) => x.role)).toEqual(['member', 'viewer']);
    await asSession(member).post('/api/team/join', { invite }).expect(400); // used

    const s = asSession(member);
    expect((await s.get('/api/runs').expect(200)).body.items.map((r: { id: string }) => r.id)).toEqual([runA]); // still acting for A
    await s.post('/api/auth/team', { teamId: teamB }).expect(200);
    expect((await s.get('/api/runs').expect(200)).body.items.map((r: { id: string }) => r.id)).toEqual([runB]);
    // a viewer in B, though a member in A
    await s.post('/api/runs', { preset: 'quick-cpu' }).expect(403);
    await s.post(`/api/runs/${runB}/cancel`, {}).expect(403);
    // B's members, as seen from B; A's run stays invisible
    const members = (await s.get('/api/team/members').expect(200)).body.map((m: { email: string }) => m.email).sort();
    expect(members).toEqual(['member@lab.test', 'owner@lab.test']);
    await s.get(`/api/runs/${runA}`).expect(404);
    await s.get(`/api/runs/${runA}/metrics`).expect(404);
  });
});
