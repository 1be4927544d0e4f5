import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

const NUL = '\u0000';
const INT32_OVER = 2 ** 31;

/** JSON text of a value nested `depth` levels deep (JSON.stringify itself overflows the stack near 5,000). */
const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;

const trajectory = (over: Record<string, unknown> = {}) => ({
  step: 1,
  success: true,
  turns: [{ observation: '#P_O#', rawReply: '<answer>Right</answer>', reward: 1, actions: ['Right'] }],
  ...over,
});

describe('input Postgres cannot store is a 400 naming the field', () => {
  let t: TestApi;
  let owner: TestUser;
  let runId: string;
  let extId: string;
  const get = (path: string) => t.http.get(path).set('Authorization', owner.auth);
  const post = (path: string, body: unknown) =>
    t.http
      .post(path)
      .set('Authorization', owner.auth)
      .send(body as object);
  const postJson = (path: string, json: string) =>
    t.http.post(path).set('Authorization', owner.auth).set('content-type', 'application/json').send(json);

  /** The answer is a 400 in the common shape, with `field` among the named paths. */
  const rejects = async (
    res: Promise<{ status: number; body: { error: string; message: string; details: { path: string }[] } }>,
    field: string,
  ) => {
    const r = await res;
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toBe('validation_failed');
    expect(r.body.details.map((d) => d.path)).toContain(field);
  };

  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
    runId = (await post('/api/runs', { preset: 'quick-cpu' }).expect(201)).body.id;
    extId = (await post('/api/runs', { name: 'ext', external: true, config: {} }).expect(201)).body.id;
  });
  afterAll(() => t.close());

  it('NUL bytes in run, token, filter and metric text', async () => {
    await rejects(post('/api/runs', { preset: 'quick-cpu', name: `a${NUL}b` }), 'name');
    await rejects(post('/api/runs', { preset: 'quick-cpu', notes: NUL }), 'notes');
    await rejects(post('/api/runs', { preset: 'quick-cpu', tags: ['ok', `x${NUL}`] }), 'tags.1');
    await rejects(
      t.http
        .patch(`/api/runs/${runId}`)
        .set('Authorization', owner.auth)
        .send({ notes: `n${NUL}` }),
      'notes',
    );
    await rejects(post('/api/tokens', { name: `laptop${NUL}` }), 'name');
    await rejects(get(`/api/runs?q=a%00b`), 'q');
    await rejects(get(`/api/runs?tag=%00`), 'tag');
    await rejects(get(`/api/runs?environment=soko%00ban`), 'environment');
    await rejects(get(`/api/runs/${runId}/trajectories?flag=%00`), 'flag');
    await rejects(post(`/api/runs/${extId}/ingest/metrics`, { points: [{ key: `loss${NUL}`, step: 1, value: 1 }] }), 'points.0.key');
    await rejects(
      post(`/api/runs/${extId}/ingest/metrics`, { points: [{ key: 'k', step: 1, value: 1, [`x${NUL}`]: 1 }] }),
      'points.0.x\\0',
    );
    // an unpaired surrogate has no UTF-8 form: jsonb refuses it and text would mangle it
    await rejects(post(`/api/runs/${extId}/ingest/metrics`, { points: [{ key: 'bad \ud800', step: 1, value: 1 }] }), 'points.0.key');
    await rejects(
      post(`/api/runs/${extId}/ingest/trajectories`, {
        trajectories: [trajectory({ turns: [{ observation: 'o', rawReply: 'r', reward: 0, snapshot: { '\udc00': 1 } }] })],
      }),
      'trajectories.0.turns.0.snapshot.\\udc00',
    );
    expect(await t.db.metricPoint.count({ where: { runId: extId } })).toBe(0);
    const runs = await t.db.run.count();
    expect(runs).toBe(2); // nothing was created by the refused requests
  });

  it('integers beyond Postgres int and bigint, and times beyond any date', async () => {
    await rejects(post(`/api/runs/${extId}/ingest/metrics`, { points: [{ key: 'k', step: INT32_OVER, value: 1 }] }), 'points.0.step');
    await rejects(post(`/api/runs/${extId}/ingest/metrics`, { points: [{ key: 'k', step: 1, value: 1, time: 1e20 }] }), 'points.0.time');
    await rejects(post(`/api/runs/${extId}/ingest/trajectories`, { trajectories: [trajectory({ step: 1e20 })] }), 'trajectories.0.step');
    await rejects(
      post(`/api/runs/${extId}/ingest/trajectories`, { trajectories: [trajectory({ seed: -(2 ** 40) })] }),
      'trajectories.0.seed',
    );
    await rejects(get(`/api/runs/${extId}/metrics?to=${INT32_OVER}`), 'to');
    await rejects(get(`/api/runs/${extId}/trajectories?from=99999999999999999999`), 'from');
    await rejects(get(`/api/runs/${extId}/diagnostics?to=${INT32_OVER}`), 'to');
    await rejects(get(`/api/runs/${extId}/trajectories?group=${INT32_OVER}`), 'group');
    await rejects(get(`/api/runs/${extId}/logs?after=99999999999999999999`), 'after');
    await rejects(get(`/api/runs/${extId}/logs?after=9223372036854775808`), 'after');
    await rejects(get(`/api/runs/${extId}/logs?after=-1`), 'after');
    expect((await get(`/api/runs/${extId}/logs?after=9223372036854775807`).expect(200)).body).toEqual([]);
    expect((await get(`/api/runs/${extId}/metrics?to=2147483647`).expect(200)).body).toEqual([]);
    await rejects(post('/api/runs', { preset: 'quick-cpu', config: { rollout: { trainSeedBase: 2 ** 40 } } }), 'rollout.trainSeedBase');
    // a listing cursor whose value Postgres cannot compare
    const cursor = (v: string) => Buffer.from(JSON.stringify({ v, id: runId })).toString('base64url');
    await rejects(get(`/api/runs?sort=name&cursor=${cursor(`a${NUL}`)}`), 'cursor');
    await rejects(get(`/api/runs?cursor=${cursor('-200000-01-01T00:00:00Z')}`), 'cursor');
  });

  it('nesting deeper than the bound, even 5,000 levels, is refused without a stack overflow', async () => {
    const batch = (snapshot: string) =>
      `{"trajectories":[{"step":1,"success":true,"turns":[{"observation":"o","rawReply":"r","reward":0,"snapshot":${snapshot}}]}]}`;
    const r = await postJson(`/api/runs/${extId}/ingest/trajectories`, batch(nestedJson(5000)));
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.details[0].path).toMatch(/^trajectories\.0\.turns\.0\.snapshot(\.a)+$/);
    await rejects(postJson('/api/runs', `{"preset":"quick-cpu","config":${nestedJson(100_000)}}`), `config${'.a'.repeat(31)}`);
    // a snapshot of ordinary depth is stored
    await postJson(`/api/runs/${extId}/ingest/trajectories`, batch(nestedJson(20))).expect(200);
    await get('/health').expect(200);
  });

  it('a batch with two trajectories of one identity is refused, naming the second', async () => {
    // without group and indexInGroup, two trajectories of one step collide
    await rejects(
      post(`/api/runs/${extId}/ingest/trajectories`, { trajectories: [trajectory({ step: 7 }), trajectory({ step: 7 })] }),
      'trajectories.1',
    );
    await rejects(
      post(`/api/runs/${extId}/ingest/trajectories`, {
        trajectories: [
          trajectory({ step: 7, group: 1, indexInGroup: 2 }),
          trajectory({ step: 8 }),
          trajectory({ step: 7, group: 1, indexInGroup: 2 }),
        ],
      }),
      'trajectories.2',
    );
    expect(await t.db.trajectory.count({ where: { runId: extId, step: { in: [7, 8] } } })).toBe(0);
    await post(`/api/runs/${extId}/ingest/trajectories`, {
      trajectories: [trajectory({ step: 7 }), trajectory({ step: 7, indexInGroup: 1 })],
    }).expect(200);
    expect(await t.db.trajectory.count({ where: { runId: extId, step: 7 } })).toBe(2);
  });

  it('8 concurrent identical trajectory batches all answer 200 and store the batch once', async () => {
    const batch = { trajectories: Array.from({ length: 16 }, (_, i) => trajectory({ step: 20, group: i >> 2, indexInGroup: i & 3 })) };
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(`/api/runs/${extId}/ingest/trajectories`, batch)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(await t.db.trajectory.count({ where: { runId: extId, step: 20 } })).toBe(16);
    expect(await t.db.turn.count({ where: { trajectory: { runId: extId, step: 20 } } })).toBe(16);
  });

  it('POST /api/runs needs a preset or an explicit config', async () => {
    const r = await post('/api/runs', {}).expect(400);
    expect(r.body.details).toEqual([{ path: 'preset', message: expect.stringContaining('preset') }]);
    await rejects(post('/api/runs', { name: 'only a name', tags: ['x'] }), 'preset');
    const explicit = await post('/api/runs', { name: 'defaults on purpose', config: {} }).expect(201);
    expect(explicit.body.preset).toBeNull();
  });

  it('every error body has error, message and details', async () => {
    const bodies = [
      (await t.http.get('/api/runs').expect(401)).body,
      (await get('/api/runs/00000000-0000-0000-0000-000000000000').expect(404)).body,
      (await get('/api/nowhere').expect(404)).body,
      (await post(`/api/runs/${runId}/ingest/metrics`, { points: [{ key: 'k', step: 1, value: 1 }] }).expect(409)).body,
      (await post('/api/runs', { bogus: 1 }).expect(400)).body,
      (await t.http.post('/api/runs').set('Authorization', owner.auth).set('content-type', 'application/json').send('{"a":').expect(400))
        .body,
    ];
    for (const b of bodies) {
      expect(Object.keys(b).sort()).toEqual(['details', 'error', 'message']);
      expect(typeof b.error).toBe('string');
      expect(typeof b.message).toBe('string');
      expect(Array.isArray(b.details)).toBe(true);
    }
  });

  it('LIKE wildcards in q= match themselves only', async () => {
    const names = ['100% done', 'a_b', 'back\\slash', 'plain'];
    for (const name of names) await post('/api/runs', { name, preset: 'quick-cpu', tags: ['like'] }).expect(201);
    const search = async (q: string) =>
      (await get(`/api/runs?tag=like&q=${encodeURIComponent(q)}`).expect(200)).body.items.map((r: { name: string }) => r.name).sort();
    expect(await search('%')).toEqual(['100% done']);
    expect(await search('_')).toEqual(['a_b']);
    expect(await search('\\')).toEqual(['back\\slash']);
    expect(await search('0%_d')).toEqual([]);
    expect(await search('PLAIN')).toEqual(['plain']);
  });
});
