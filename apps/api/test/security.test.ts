import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, listeningTestApi, signupOwner, startTestApi, WEB_ORIGIN, type TestApi, type TestUser } from './helpers.js';

const EVIL = 'https://evil.example';

describe('CSRF defence for cookie-authenticated requests', () => {
  let t: TestApi;
  let owner: TestUser;
  let runId: string;

  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
    runId = (await t.http.post('/api/runs').set('Authorization', owner.auth).send({ preset: 'quick-cpu' }).expect(201)).body.id;
  });
  afterAll(() => t.close());

  const status = async () => (await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status;

  it('a cross-site form post with the session cookie is refused and changes nothing', async () => {
    const r = await t.http
      .post(`/api/runs/${runId}/cancel`)
      .set('Cookie', owner.cookie)
      .set('Origin', EVIL)
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send('x=1')
      .expect(403);
    expect(r.body).toMatchObject({ error: 'cross_origin_refused', details: [{ path: 'origin' }] });
    expect(await status()).toBe('queued');
    // the same without a body, and a cross-site request that hides its origin
    await t.http.post(`/api/runs/${runId}/cancel`).set('Cookie', owner.cookie).set('Origin', EVIL).expect(403);
    await t.http.post(`/api/runs/${runId}/cancel`).set('Cookie', owner.cookie).set('Sec-Fetch-Site', 'cross-site').expect(403);
    await t.http.post(`/api/runs/${runId}/cancel`).set('Cookie', owner.cookie).set('Origin', 'null').expect(403);
    await t.http.delete(`/api/runs/${runId}`).set('Cookie', owner.cookie).set('Origin', EVIL).expect(403);
    expect(await status()).toBe('queued');
  });

  it('a text/plain or form body is refused on JSON routes, whatever the origin', async () => {
    const before = await t.db.run.count();
    for (const origin of [WEB_ORIGIN, EVIL]) {
      const plain = await t.http
        .post('/api/runs')
        .set('Cookie', owner.cookie)
        .set('Origin', origin)
        .type('text/plain')
        .send('{"preset":"quick-cpu"}');
      expect([403, 415]).toContain(plain.status);
    }
    const fromDashboard = await t.http
      .post('/api/runs')
      .set('Cookie', owner.cookie)
      .set('Origin', WEB_ORIGIN)
      .type('text/plain')
      .send('{"preset":"quick-cpu"}')
      .expect(415);
    expect(fromDashboard.body).toMatchObject({ error: 'unsupported_media_type', details: [{ path: 'content-type' }] });
    await t.http.post('/api/runs').set('Authorization', owner.auth).type('form').send('preset=quick-cpu').expect(415);
    expect(await t.db.run.count()).toBe(before);
  });

  it('the dashboard origin, the API’s own origin and scripts without an Origin header pass', async () => {
    const fromWeb = await t.http
      .post('/api/runs')
      .set('Cookie', owner.cookie)
      .set('Origin', WEB_ORIGIN)
      .set('Sec-Fetch-Site', 'same-site')
      .send({ preset: 'quick-cpu', name: 'from the dashboard' })
      .expect(201);
    await t.http.post(`/api/runs/${fromWeb.body.id}/cancel`).set('Cookie', owner.cookie).set('Origin', WEB_ORIGIN).expect(202);
    // curl with a cookie jar (docs/api.md's example) sends no Origin
    await t.http.post('/api/tokens').set('Cookie', owner.cookie).send({ name: 'curl' }).expect(201);
    // Swagger UI is served by the API itself
    const self = await t.http
      .post('/api/tokens')
      .set('Cookie', owner.cookie)
      .set('Host', 'api.lab.test')
      .set('Origin', 'http://api.lab.test')
      .send({ name: 'docs' });
    expect(self.status, JSON.stringify(self.body)).toBe(201);
    // a bearer token is not sent by browsers on their own, so its origin does not matter
    await t.http.post('/api/runs').set('Authorization', owner.auth).set('Origin', EVIL).send({ preset: 'quick-cpu' }).expect(201);
    // reads are not writes
    await t.http.get('/api/runs').set('Cookie', owner.cookie).set('Origin', EVIL).expect(200);
  });

  it('signing in from a foreign page is refused (login CSRF)', async () => {
    await t.http.post('/api/auth/login').set('Origin', EVIL).send({ email: 'owner@lab.test', password: 'correct horse' }).expect(403);
    await t.http.post('/api/auth/login').set('Origin', WEB_ORIGIN).send({ email: 'owner@lab.test', password: 'correct horse' }).expect(200);
  });
});

describe('socket.io: origin rule and revocation', () => {
  let t: ListeningTestApi;
  let owner: TestUser;
  let url: string;
  const sockets: Socket[] = [];

  const connect = (opts: { token?: string; cookie?: string; origin?: string }) => {
    const headers: Record<string, string> = {};
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.origin) headers.origin = opts.origin;
    const s = io(url, {
      auth: opts.token ? { token: opts.token } : {},
      extraHeaders: headers,
      transports: ['websocket'],
      reconnection: false,
    });
    sockets.push(s);
    return s;
  };
  /** 'connected', or the connect error's message. */
  const outcome = (s: Socket) =>
    new Promise<string>((res) => {
      s.once('connect', () => res('connected'));
      s.once('connect_error', (e) => res(`refused: ${e.message}`));
    });
  const disconnected = (s: Socket, ms = 10_000) =>
    new Promise<string>((res, rej) => {
      const timer = setTimeout(() => rej(new Error('still connected')), ms);
      s.once('disconnect', (reason) => {
        clearTimeout(timer);
        res(reason);
      });
    });

  beforeAll(async () => {
    t = await listeningTestApi();
    url = t.url;
    owner = await signupOwner(t);
  });
  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await t.close();
  });

  it('a session cookie from a foreign origin is refused at the handshake; the dashboard’s origin and scripts pass', async () => {
    expect(await outcome(connect({ cookie: owner.cookie, origin: EVIL }))).toMatch(/^refused/);
    expect(await outcome(connect({ token: owner.token, origin: EVIL }))).toMatch(/^refused/);
    expect(await outcome(connect({ cookie: owner.cookie, origin: WEB_ORIGIN }))).toBe('connected');
    expect(await outcome(connect({ token: owner.token }))).toBe('connected');
  });

  it('a socket is closed when its token is revoked, its session ends or its role changes', async () => {
    const member = await joinAs(t, owner, 'member', 'm@lab.test');
    const tok = (await t.http.post('/api/tokens').set('Authorization', member.auth).send({ name: 'revoke me' }).expect(201)).body;
    const byToken = connect({ token: tok.token });
    const bySession = connect({ cookie: member.cookie, origin: WEB_ORIGIN });
    const byOtherToken = connect({ token: member.token });
    expect(await Promise.all([outcome(byToken), outcome(bySession), outcome(byOtherToken)])).toEqual([
      'connected',
      'connected',
      'connected',
    ]);

    const tokenGone = disconnected(byToken);
    await t.http.delete(`/api/tokens/${tok.id}`).set('Authorization', member.auth).expect(204);
    expect(await tokenGone).toBe('io server disconnect');
    expect(await outcome(connect({ token: tok.token }))).toBe('refused: unauthorized');
    expect(byOtherToken.connected && bySession.connected).toBe(true);

    const sessionGone = disconnected(bySession);
    await t.http.post('/api/auth/logout').set('Cookie', member.cookie).set('Origin', WEB_ORIGIN).expect(204);
    expect(await sessionGone).toBe('io server disconnect');
    expect(byOtherToken.connected).toBe(true);

    const roleChanged = disconnected(byOtherToken);
    await t.http.patch(`/api/team/members/${member.userId}`).set('Authorization', owner.auth).send({ role: 'viewer' }).expect(200);
    expect(await roleChanged).toBe('io server disconnect');
    // with its new role it connects again
    expect(await outcome(connect({ token: member.token }))).toBe('connected');
  });
});
