import type { RunSummary } from '@starpo/contracts';
import { upsertMetrics } from '@starpo/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

describe('runs over REST', () => {
  let t: TestApi;
  let owner: TestUser;
  const post = (path: string, body?: object) => t.http.post(path).set('Authorization', owner.auth).send(body);
  const get = (path: string) => t.http.get(path).set('Authorization', owner.auth);
  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
  });
  afterAll(() => t.close());

  it('creates a queued run from a preset plus overrides, then reads and lists it', async () => {
    const res = await post('/api/runs', {
      name: 'first',
      preset: 'quick-cpu',
      config: { env: { name: 'frozenlake' }, training: { steps: 3 } },
      tags: ['smoke'],
    }).expect(201);
    expect(res.body).toMatchObject({
      name: 'first',
      kind: 'train',
      ownerId: owner.userId,
      status: 'queued',
      environment: 'frozenlake',
      algorithm: 'turn_return',
      preset: 'quick-cpu',
      totalSteps: 3,
      tags: ['smoke'],
    });
    const one = await get(`/api/runs/${res.body.id}`).expect(200);
    expect(one.body.config).toMatchObject({ env: { name: 'frozenlake' }, training: { steps: 3 }, rollout: { groupSize: 2 } });
    const list = await get('/api/runs').expect(200);
    expect(list.body.items.map((r: { id: string }) => r.id)).toContain(res.body.id);
  });

  it('rejects a bad config with 400 listing every wrong field, and stores nothing', async () => {
    const before = await t.db.run.count();
    const res = await post('/api/runs', {
      preset: 'starpo-ppo',
      config: { ppo: { clipRatioLow: 'x' }, rollout: { envGroups: 0 }, env: { name: 'chess' } },
    }).expect(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining(['ppo.clipRatioLow', 'rollout.envGroups', 'env.name']),
    );
    await post('/api/runs', { preset: 'nope' }).expect(400);
    const unknown = await post('/api/runs', { bogus: 1 }).expect(400);
    expect(unknown.body.details[0].message).toMatch(/bogus/);
    await post('/api/runs', { name: 42 }).expect(400);
    await t.http.post('/api/runs').set('Authorization', owner.auth).set('content-type', 'application/json').send('{not json').expect(400);
    expect(await t.db.run.count()).toBe(before);
  });

  it('404 for unknown or malformed run ids', async () => {
    await get('/api/runs/00000000-0000-0000-0000-000000000000').expect(404);
    const res = await get('/api/runs/not-a-uuid').expect(404);
    expect(res.body).toMatchObject({ error: 'not_found' });
    await post('/api/runs/00000000-0000-0000-0000-000000000000/cancel').expect(404);
  });

  it('413 for an oversized body', async () => {
    const res = await post('/api/runs', { notes: 'x'.repeat(2_000_000) }).expect(413);
    expect(res.body.error).toBe('payload_too_large');
  });

  it('lists with filters, sort and cursor pagination; a bad cursor is a 400', async () => {
    for (const [i, env] of ['sokoban', 'bandit', 'sokoban', 'frozenlake', 'sokoban'].entries())
      await post('/api/runs', {
        name: `page-${i}`,
        preset: 'starpo-grpo',
        config: { env: { name: env } },
        tags: i % 2 ? ['odd'] : [],
      }).expect(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/api/runs?q=page-&limit=2&sort=name${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
      seen.push(...res.body.items.map((r: { name: string }) => r.name));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    expect((await get('/api/runs?environment=sokoban&q=page-').expect(200)).body.items).toHaveLength(3);
    expect((await get('/api/runs?tag=odd').expect(200)).body.items.map((r: { name: string }) => r.name).sort()).toEqual([
      'page-1',
      'page-3',
    ]);
    expect((await get('/api/runs?status=queued,running&limit=200').expect(200)).body.items.length).toBeGreaterThanOrEqual(5);
    const bad = await get('/api/runs?cursor=garbage').expect(400);
    expect(bad.body.details[0].path).toBe('cursor');
    expect((await get('/api/runs?status=exploded').expect(400)).body.details[0].path).toMatch(/^status/);
    expect((await get('/api/runs?limit=0').expect(400)).body.details[0].path).toBe('limit');
  });

  it('sorts every matching run by a metric’s last, highest or lowest value, pages in order, runs without it last', async () => {
    // more runs than one page, so a page-local sort would be caught out: the best is created first
    const made: Record<string, string> = {};
    for (const [name, values] of [
      ['ms-a', [0.9, 0.2]],
      ['ms-b', [0.1, 0.5]],
      ['ms-c', [0.4, 0.4]],
      ['ms-d', [0.3, 0.8]],
      ['ms-none', []],
    ] as const) {
      const id = (await post('/api/runs', { name, preset: 'quick-cpu', tags: ['msort'] }).expect(201)).body.id as string;
      made[name] = id;
      for (const [i, v] of values.entries()) await upsertMetrics(t.db, id, i + 1, { 'eval/custom': v });
    }
    const all = async (sort: string) => {
      const names: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(`/api/runs?tag=msort&limit=2&sort=${encodeURIComponent(sort)}${cursor ? `&cursor=${cursor}` : ''}`).expect(
          200,
        );
        names.push(...res.body.items.map((r: { name: string }) => r.name));
        cursor = res.body.nextCursor;
      } while (cursor);
      return names;
    };
    expect(await all('-last:eval/custom')).toEqual(['ms-d', 'ms-b', 'ms-c', 'ms-a', 'ms-none']);
    expect(await all('last:eval/custom')).toEqual(['ms-a', 'ms-c', 'ms-b', 'ms-d', 'ms-none']);
    expect(await all('-max:eval/custom')).toEqual(['ms-a', 'ms-d', 'ms-b', 'ms-c', 'ms-none']);
    expect(await all('min:eval/custom')).toEqual(['ms-b', 'ms-a', 'ms-d', 'ms-c', 'ms-none']);
    // the sorted metric's last value comes along in `latest`, and so do the keys asked for
    const first = (await get('/api/runs?tag=msort&limit=1&sort=-last:eval/custom').expect(200)).body.items[0];
    expect(first.latest['eval/custom']).toBe(0.8);
    const cols = (await get('/api/runs?tag=msort&metrics=eval/custom').expect(200)).body.items as { name: string; latest: object }[];
    expect(cols.find((r) => r.name === 'ms-a')!.latest).toHaveProperty('eval/custom', 0.2);

    expect((await get('/api/runs?sort=best:x').expect(400)).body.details[0].path).toBe('sort');
    expect((await get('/api/runs?sort=last:').expect(400)).body.details[0].path).toBe('sort');
    expect((await get('/api/runs?sort=-last:eval/custom&cursor=garbage').expect(400)).body.details[0].path).toBe('cursor');
    expect(
      (await get(`/api/runs?metrics=${Array.from({ length: 21 }, (_, i) => `k${i}`).join(',')}`).expect(400)).body.details[0].path,
    ).toBe('metrics');
  });

  it('updates metadata, cancels (409 once finished), clones with overrides, resumes and deletes', async () => {
    const run = (await post('/api/runs', { name: 'life', preset: 'quick-cpu' }).expect(201)).body;
    const patched = await t.http
      .patch(`/api/runs/${run.id}`)
      .set('Authorization', owner.auth)
      .send({ notes: 'n', tags: ['a'] })
      .expect(200);
    expect(patched.body).toMatchObject({ notes: 'n', tags: ['a'], name: 'life' });
    await t.http.patch(`/api/runs/${run.id}`).set('Authorization', owner.auth).send({ status: 'succeeded' }).expect(400);

    const cancelled = await post(`/api/runs/${run.id}/cancel`).expect(202);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', stopReason: 'cancelled by Owner' });
    expect((await post(`/api/runs/${run.id}/cancel`).expect(409)).body.error).toBe('conflict');

    const clone = await post(`/api/runs/${run.id}/clone`, { config: { training: { steps: 7 } } }).expect(201);
    expect(clone.body).toMatchObject({ name: 'life (clone)', clonedFromId: run.id, totalSteps: 7, status: 'queued', tags: ['a'] });
    expect(clone.body.config.rollout.groupSize).toBe(2);
    expect((await post(`/api/runs/${run.id}/clone`, { config: { training: { steps: -1 } } }).expect(400)).body.details[0].path).toBe(
      'training.steps',
    );

    const resumed = await post(`/api/runs/${run.id}/resume`).expect(202);
    expect(resumed.body).toMatchObject({ status: 'queued', resumeCount: 1, stopReason: null });
    await post(`/api/runs/${run.id}/resume`).expect(409);

    // a running run is cancelled by flag: the worker stops at its next phase boundary
    await t.db.run.update({ where: { id: run.id }, data: { status: 'running' } });
    await t.http.delete(`/api/runs/${run.id}`).set('Authorization', owner.auth).expect(409);
    expect((await post(`/api/runs/${run.id}/cancel`).expect(202)).body).toMatchObject({ status: 'running', cancelRequested: true });
    // a worker that never honours the cancel (dead, frozen) does not pin the run: once cancelled, it can be deleted
    await upsertMetrics(t.db, run.id, 1, { 'train/success': 0.5 });
    await t.http.delete(`/api/runs/${run.id}`).set('Authorization', owner.auth).expect(204);
    await get(`/api/runs/${run.id}`).expect(404);
    expect(await t.db.metricPoint.count({ where: { runId: run.id } })).toBe(0);
  });

  it('announces queued runs on the pg-boss queue, one waiting dispatch per run', async () => {
    const run = (await post('/api/runs', { preset: 'quick-cpu' }).expect(201)).body;
    const jobs = () =>
      t.db.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'runs' AND data->>'runId' = $1`,
        run.id,
      );
    expect((await jobs())[0]!.n).toBe(1);
    await post(`/api/runs/${run.id}/cancel`).expect(202);
    await post(`/api/runs/${run.id}/resume`).expect(202); // still waiting: the duplicate is dropped
    expect((await jobs())[0]!.n).toBe(1);
    const ext = (await post('/api/runs', { preset: 'quick-cpu', external: true }).expect(201)).body;
    const extJobs = await t.db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'runId' = $1`,
      ext.id,
    );
    expect(extJobs[0]!.n).toBe(0);
  });

  it('serves metric series and the latest values in the run summary', async () => {
    const created = (await post('/api/runs', { preset: 'quick-cpu' }).expect(201)).body;
    await upsertMetrics(t.db, created.id, 1, { 'val/success': 0.25, 'train/success': 0.1 });
    await upsertMetrics(t.db, created.id, 2, { 'val/success': 0.125, 'train/success': 0.2 });
    await upsertMetrics(t.db, created.id, 2, { 'train/success': 0.3 }); // idempotent upsert
    const series = (await get(`/api/runs/${created.id}/metrics?keys=train/success`).expect(200)).body;
    expect(series).toEqual([
      {
        key: 'train/success',
        points: [expect.objectContaining({ step: 1, value: 0.1 }), expect.objectContaining({ step: 2, value: 0.3 })],
      },
    ]);
    const summary = (await get(`/api/runs/${created.id}`).expect(200)).body;
    expect(summary.latest).toMatchObject({ 'train/success': 0.3, 'val/success': 0.125 });
    expect(summary.bestValSuccess).toBe(0.25);
    expect((await get(`/api/runs/${created.id}/metric-keys`).expect(200)).body).toEqual(['train/success', 'val/success']);
  });

  it('gives a finished run a verdict on its first → last validation against the noise, in the run and in the list', async () => {
    /** A quick-cpu run (64 validation episodes) with one validation per `steps` entry. */
    const make = async (name: string, vals: number[], status: 'succeeded' | 'running', steps = vals.map((_, i) => i * 10)) => {
      const run = (await post('/api/runs', { name, preset: 'quick-cpu' }).expect(201)).body;
      for (const [i, v] of vals.entries()) await upsertMetrics(t.db, run.id, steps[i]!, { 'val/success': v });
      await t.db.run.update({ where: { id: run.id }, data: { status } });
      return run.id as string;
    };
    // steps 0, 100 and 200 lie in different 64-step blocks of metric_blocks
    const learned = await make('learned', [9 / 64, 30 / 64, 26 / 64], 'succeeded', [0, 100, 200]);
    const flat = await make('flat', [9 / 64, 16 / 64, 13 / 64], 'succeeded');
    const worse = await make('worse', [32 / 64, 13 / 64], 'succeeded');
    const once = await make('validated once', [0.2], 'succeeded');
    const live = await make('still running', [0.1, 0.5], 'running');
    const external = (await post('/api/runs', { name: 'elsewhere', external: true, config: {} }).expect(201)).body.id as string;
    for (const [i, v] of [0.1, 0.9].entries()) await upsertMetrics(t.db, external, i, { 'val/success': v });
    await post(`/api/runs/${external}/ingest/finish`, { status: 'succeeded' }).expect(200);

    expect((await get(`/api/runs/${learned}`).expect(200)).body).toMatchObject({
      valSuccessAtStart: 9 / 64,
      valSuccessAtEnd: 26 / 64,
      bestValSuccess: 30 / 64,
      valEpisodes: 64,
      valVerdict: { verdict: 'improved', change: 17 / 64, noise: expect.closeTo(0.15213, 4), reason: null },
    });
    const list = (await get('/api/runs?limit=100').expect(200)).body.items as RunSummary[];
    const byId = (id: string) => list.find((r) => r.id === id)!;
    expect(byId(learned)).toMatchObject({ valSuccessAtStart: 9 / 64, valSuccessAtEnd: 26 / 64, valEpisodes: 64 });
    expect([learned, flat, worse].map((id) => byId(id).valVerdict?.verdict)).toEqual(['improved', 'no_clear_change', 'got_worse']);
    expect(byId(flat)).toMatchObject({ valSuccessAtEnd: 13 / 64, bestValSuccess: 16 / 64 }); // the best is not judged
    expect(byId(once).valVerdict).toMatchObject({ verdict: null, reason: 'only one validation (step 0): nothing to compare it with' });
    expect(byId(live)).toMatchObject({ valSuccessAtStart: 0.1, valSuccessAtEnd: 0.5, valVerdict: null }); // judged when it finishes
    expect(byId(external)).toMatchObject({
      valEpisodes: null,
      valVerdict: { verdict: null, reason: 'the number of episodes per validation is unknown' },
    });
  });
});
