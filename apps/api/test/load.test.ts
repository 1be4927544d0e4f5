import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

/**
 * Statements this process sends to Postgres whose text matches `pattern`, while `during` runs (the
 * API under test runs in this process, so its pool's queries pass through node-postgres here too).
 */
async function statements(pattern: RegExp, during: () => Promise<unknown>): Promise<number> {
  const query = pg.Client.prototype.query;
  let n = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const c = args[0] as string | { text?: string };
    if (pattern.test(typeof c === 'string' ? c : (c?.text ?? ''))) n++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await during();
  } finally {
    pg.Client.prototype.query = query;
  }
  return n;
}

describe('a full pool is backpressure, not an outage', () => {
  let t: TestApi;
  let owner: TestUser;
  let locker: pg.Client | undefined;
  beforeAll(async () => {
    // one connection, given up on after 400 ms of waiting
    t = await startTestApi({ dbPoolSize: 1, dbConnectTimeoutMs: 400 });
    owner = await signupOwner(t);
    await t.http.post('/api/runs').set('Authorization', owner.auth).send({ preset: 'quick-cpu' }).expect(201);
  });
  afterEach(async () => {
    await locker?.end().catch(() => {});
    locker = undefined;
  });
  afterAll(() => t?.close());

  it('answers 503 server_busy with Retry-After while the only connection is held, and /health still says the database is up', async () => {
    await t.http.get('/api/runs').set('Authorization', owner.auth).expect(200); // the token is resolved and cached
    // a lock from outside holds the list's query, and with it the pool's only connection
    locker = new pg.Client({ connectionString: t.database.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE');
    const held = t.http
      .get('/api/runs')
      .set('Authorization', owner.auth)
      .then((r) => r);
    await new Promise((r) => setTimeout(r, 200));

    // another page: it does not share the held one's answer (see SharedReads), so it waits for a connection
    const busy = await t.http.get('/api/runs?limit=5').set('Authorization', owner.auth);
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.body).toEqual({ error: 'server_busy', message: expect.stringMatching(/busy/), details: [] });

    // the database itself answers: /health asks on a connection of its own
    const health = await t.http.get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', database: 'up' });

    await locker.query('COMMIT');
    expect((await held).status).toBe(200);
  });
});

describe('a query that times out while the database answers is load, not an outage', () => {
  let t: TestApi;
  let owner: TestUser;
  beforeAll(async () => {
    t = await startTestApi({ dbQueryTimeoutMs: 600 });
    owner = await signupOwner(t);
  });
  afterAll(() => t?.close());

  it('answers 503 server_busy with Retry-After, not database_unavailable', async () => {
    await t.http.get('/api/runs').set('Authorization', owner.auth).expect(200);
    // the list waits on a lock past its query timeout; a probe on a connection of its own still gets an answer
    const locker = new pg.Client({ connectionString: t.database.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE');
      const slow = await t.http.get('/api/runs?limit=7').set('Authorization', owner.auth);
      expect(slow.status).toBe(503);
      expect(slow.body).toEqual({ error: 'server_busy', message: expect.stringMatching(/busy/), details: [] });
      expect(slow.headers['retry-after']).toBe('1');
    } finally {
      await locker.end();
    }
    await t.http.get('/api/runs?limit=7').set('Authorization', owner.auth).expect(200);
  });
});

describe('reads that many screens repeat', () => {
  let t: TestApi;
  let owner: TestUser;
  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
  });
  afterAll(() => t?.close());

  it("a run's unchanged series answers 304 to its ETag without reading a point, and a new point changes the tag", async () => {
    const post = (path: string, body: object) => t.http.post(path).set('Authorization', owner.auth).send(body);
    const run = (await post('/api/runs', { name: 'etag', external: true, config: { env: { name: 'sokoban' } } }).expect(201)).body;
    const points = (from: number) =>
      Array.from({ length: 20 }, (_, i) => ({ key: 'train/loss', step: from + i, value: 1 / (from + i + 1) }));
    await post(`/api/runs/${run.id}/ingest/metrics`, { points: points(0) }).expect(200);
    const path = `/api/runs/${run.id}/metrics?keys=train/loss`;
    const get = (etag?: string) => {
      const req = t.http.get(path).set('Authorization', owner.auth);
      return etag ? req.set('If-None-Match', etag) : req;
    };

    const first = await get().expect(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"m-/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(first.body[0].points).toHaveLength(20);

    // the series' blocks are not read, nor the body rendered, for a client whose copy is current
    let again: Awaited<ReturnType<typeof get>> | undefined;
    expect(await statements(/metric_blocks/, async () => (again = await get(etag)))).toBe(0);
    expect(again!.status).toBe(304);
    expect(again!.text).toBe('');

    await post(`/api/runs/${run.id}/ingest/metrics`, { points: points(20).slice(0, 1) }).expect(200);
    const changed = await get(etag).expect(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.body[0].points).toHaveLength(21);
    await get(changed.headers.etag as string).expect(304);
  });

  it("a chart's answer goes gzipped to a client that accepts it, the same series and ETag as the plain one", async () => {
    const post = (path: string, body: object) => t.http.post(path).set('Authorization', owner.auth).send(body);
    const run = (await post('/api/runs', { name: 'gzip', external: true, config: { env: { name: 'sokoban' } } }).expect(201)).body;
    const points = Array.from({ length: 400 }, (_, i) => ({ key: 'train/loss', step: i, value: 1 / (i + 1) }));
    await post(`/api/runs/${run.id}/ingest/metrics`, { points }).expect(200);
    const get = (encoding: string) =>
      t.http
        .get(`/api/runs/${run.id}/metrics?keys=train/loss&format=columns`)
        .set('Authorization', owner.auth)
        .set('Accept-Encoding', encoding);

    const plain = await get('identity').expect(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await get('gzip, deflate, br').expect(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/i);
    expect(zipped.headers['content-type']).toMatch(/application\/json/);
    expect(Number(zipped.headers['content-length'])).toBeLessThan(plain.text.length / 2);
    expect(zipped.body).toEqual(plain.body);
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    // revalidation still answers 304 with nothing to decompress
    await get('gzip')
      .set('If-None-Match', zipped.headers.etag as string)
      .expect(304);
  });

  /**
   * `read` once, then nine more times while a lock from outside keeps the first in flight; the
   * answers, and how many statements matching `pattern` were sent meanwhile.
   */
  async function burstBehindLock<T>(read: () => Promise<T>, pattern: RegExp): Promise<{ answers: T[]; statements: number }> {
    const locker = new pg.Client({ connectionString: t.database.url });
    await locker.connect();
    try {
      let answers: T[] = [];
      const n = await statements(pattern, async () => {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE');
        const first = read();
        await new Promise((r) => setTimeout(r, 150));
        const rest = Array.from({ length: 9 }, read);
        await new Promise((r) => setTimeout(r, 150));
        await locker.query('COMMIT');
        answers = await Promise.all([first, ...rest]);
      });
      return { answers, statements: n };
    } finally {
      await locker.end();
    }
  }

  it('identical lists asked while one is read share its answer, and a write is seen by the next list', async () => {
    const list = () => t.http.get('/api/runs?limit=50').set('Authorization', owner.auth);
    await list().expect(200);
    const { answers, statements: reads } = await burstBehindLock(() => list().then((r) => r), /FROM "public"\."runs"/);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(reads).toBe(1);
    const before = (await list().expect(200)).body.items.length;
    await t.http.post('/api/runs').set('Authorization', owner.auth).send({ preset: 'quick-cpu' }).expect(201);
    expect((await list().expect(200)).body.items).toHaveLength(before + 1);
  });

  it("screens revalidating a run's charts at once share one version check, and a point ingested meanwhile is seen next", async () => {
    const post = (path: string, body: object) => t.http.post(path).set('Authorization', owner.auth).send(body);
    const run = (await post('/api/runs', { name: 'burst', external: true, config: { env: { name: 'sokoban' } } }).expect(201)).body;
    await post(`/api/runs/${run.id}/ingest/metrics`, { points: [{ key: 'train/loss', step: 0, value: 1 }] }).expect(200);
    const path = `/api/runs/${run.id}/metrics?keys=train/loss`;
    const etag = (await t.http.get(path).set('Authorization', owner.auth).expect(200)).headers.etag as string;
    const revalidate = () =>
      t.http
        .get(path)
        .set('Authorization', owner.auth)
        .set('If-None-Match', etag)
        .then((r) => r);

    const { answers, statements: checks } = await burstBehindLock(revalidate, /metric_summaries/);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(304));
    expect(checks).toBe(1);

    // a write through this instance: the next screen checks afresh and gets the new point
    await post(`/api/runs/${run.id}/ingest/metrics`, { points: [{ key: 'train/loss', step: 1, value: 0.5 }] }).expect(200);
    const next = await revalidate();
    expect(next.status).toBe(200);
    expect(next.body[0].points).toHaveLength(2);
  });

  it('a session is looked up once for a burst of requests, and a logout is refused at once', async () => {
    const get = () => t.http.get('/api/runs').set('Cookie', owner.cookie);
    await get().expect(200);
    expect(await statements(/"sessions"|\bsessions\b/, async () => Promise.all(Array.from({ length: 5 }, () => get().expect(200))))).toBe(
      0,
    );
    await t.http.post('/api/auth/logout').set('Cookie', owner.cookie).set('Origin', 'http://localhost:3000').expect(204);
    await get().expect(401);
  });
});
