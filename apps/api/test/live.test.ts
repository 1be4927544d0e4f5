import { SUBSCRIBE_CATCH_UP_LIMIT } from '@starpo/contracts';
import { publishRunNotice, upsertMetricPoints, upsertMetrics } from '@starpo/db';
import { io, type Socket } from 'socket.io-client';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/bootstrap.js';
import { WEB_ORIGIN, listeningTestApi, type ListeningTestApi, otherTeamUser, signupOwner, type TestUser } from './helpers.js';

type Ack = { ok: boolean; error?: string; status?: { status: string }; metrics?: { step: number; values: Record<string, number> }[] };

describe('live events over socket.io', () => {
  let t: ListeningTestApi;
  let owner: TestUser;
  let url: string;
  const sockets: Socket[] = [];
  const connect = (auth: object = {}, headers: Record<string, string> = {}) => {
    const s = io(url, { auth, extraHeaders: headers, transports: ['websocket'], reconnection: false });
    sockets.push(s);
    return s;
  };
  const connected = (s: Socket) =>
    new Promise<void>((res, rej) => (s.connected ? res() : (s.once('connect', () => res()), s.once('connect_error', rej))));
  const workerWritesStep = async (runId: string, step: number, values: Record<string, number>) => {
    await upsertMetrics(t.db, runId, step, values);
    await publishRunNotice(t.db, { run: runId, type: 'metrics', step });
  };

  beforeAll(async () => {
    t = await listeningTestApi();
    url = t.url;
    owner = await signupOwner(t);
  });
  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await t.close();
  });

  it('delivers a subscribed run’s metrics and status live, and nothing of another team’s run', async () => {
    const mine = (await t.http.post('/api/runs').set('Authorization', owner.auth).send({ preset: 'quick-cpu' }).expect(201)).body.id;
    const rival = await otherTeamUser(t);
    const theirs = await t.db.run.create({
      data: { teamId: rival.teamId, name: 'x', config: {}, environment: 'bandit', algorithm: 'grpo' },
    });

    const me = connect({ token: owner.token });
    const spy = connect({ token: rival.token });
    await Promise.all([connected(me), connected(spy)]);
    const ack = (await me.emitWithAck('subscribe', { runId: mine })) as Ack;
    expect(ack).toMatchObject({ ok: true, status: { status: 'queued' }, metrics: [] });
    expect(await spy.emitWithAck('subscribe', { runId: mine })).toMatchObject({ ok: false, error: 'not_found' });
    expect(await spy.emitWithAck('subscribe', { runId: 'nope' })).toMatchObject({ ok: false, error: 'bad_request' });
    await spy.emitWithAck('subscribe', { runId: theirs.id });

    const leaked: unknown[] = [];
    spy.on('metrics', (e) => leaked.push(e));
    const got = new Promise<{ runId: string; step: number; values: Record<string, number> }>((r) => me.once('metrics', r));
    await workerWritesStep(mine, 1, { 'train/success': 0.25, 'val/success': 0.5 });
    expect(await got).toEqual({ runId: mine, step: 1, values: { 'train/success': 0.25, 'val/success': 0.5 } });

    const status = new Promise<{ status: string }>((r) => me.once('status', r));
    await t.http.post(`/api/runs/${mine}/cancel`).set('Authorization', owner.auth).expect(202);
    expect(await status).toMatchObject({ runId: mine, status: 'cancelled' });

    const mineAgain = new Promise((r) => me.once('metrics', r));
    await workerWritesStep(theirs.id, 1, { 'train/success': 1 }); // the spy's own run: it hears that one
    await workerWritesStep(mine, 2, { 'train/success': 0.5 });
    await mineAgain;
    await new Promise((r) => setTimeout(r, 100));
    expect(leaked.map((e) => (e as { runId: string }).runId)).toEqual([theirs.id]);
  });

  it('delivers an external run’s metrics as its trainer posts them', async () => {
    const run = (await t.http.post('/api/runs').set('Authorization', owner.auth).send({ external: true, config: {} }).expect(201)).body.id;
    const c = connect({ token: owner.token });
    await connected(c);
    expect(await c.emitWithAck('subscribe', { runId: run })).toMatchObject({ ok: true });
    const events: { step: number; values: Record<string, number> }[] = [];
    const got = new Promise<void>((r) => c.on('metrics', (e) => events.push(e) === 2 && r()));
    const points = [3, 4].map((step) => ({ key: 'train/success', step, value: step / 10 }));
    await t.http.post(`/api/runs/${run}/ingest/metrics`).set('Authorization', owner.auth).send({ points }).expect(200);
    await got; // one event a step the request wrote
    expect(events.map((e) => [e.step, e.values['train/success']])).toEqual([
      [3, 0.3],
      [4, 0.4],
    ]);
  });

  it('a reconnecting client catches up from the last step it saw', async () => {
    const run = (await t.http.post('/api/runs').set('Authorization', owner.auth).send({ preset: 'quick-cpu' }).expect(201)).body.id;
    for (let s = 1; s <= 5; s++) await upsertMetrics(t.db, run, s, { 'train/reward/mean': s });
    const c = connect({}, { Cookie: owner.cookie }); // the dashboard's way: the session cookie
    await connected(c);
    const ack = (await c.emitWithAck('subscribe', { runId: run, afterStep: 3 })) as Ack;
    expect(ack.metrics!.map((m) => [m.step, m.values['train/reward/mean']])).toEqual([
      [4, 4],
      [5, 5],
    ]);
    // past the last storable step: refused by name, not a database error
    const far = await c.emitWithAck('subscribe', { runId: run, afterStep: 2 ** 31 - 1 });
    expect(far).toMatchObject({ ok: false, error: 'bad_request', message: expect.stringMatching(/afterStep/) });
  });

  it('a client that missed more than a catch-up carries is told to reload over HTTP', async () => {
    const run = (await t.http.post('/api/runs').set('Authorization', owner.auth).send({ preset: 'quick-cpu' }).expect(201)).body.id;
    const points = Array.from({ length: SUBSCRIBE_CATCH_UP_LIMIT + 10 }, (_, i) => ({
      key: `k${i % 10}`,
      step: Math.floor(i / 10),
      value: i,
    }));
    await upsertMetricPoints(t.db, run, points);
    const c = connect({ token: owner.token });
    await connected(c);
    expect(await c.emitWithAck('subscribe', { runId: run })).toMatchObject({ ok: true, truncated: true, metrics: [] });
    const recent = (await c.emitWithAck('subscribe', { runId: run, afterStep: Math.floor(SUBSCRIBE_CATCH_UP_LIMIT / 10) - 2 })) as Ack;
    expect(recent.metrics!.map((m) => m.step)).toEqual([499, 500]);
  });

  it('two API instances on one database each deliver every event once, in order, to their own clients', async () => {
    const second = await createApp({ databaseUrl: t.database.url, webOrigin: WEB_ORIGIN }, { logger: false });
    await second.listen(0, '127.0.0.1');
    try {
      const secondUrl = `http://127.0.0.1:${(second.getHttpServer().address() as AddressInfo).port}`;
      const run = (await t.http.post('/api/runs').set('Authorization', owner.auth).send({ preset: 'quick-cpu' }).expect(201)).body.id;
      const clients = [url, url, url, secondUrl, secondUrl, secondUrl].map((at) => {
        const s = io(at, { auth: { token: owner.token }, transports: ['websocket'], reconnection: false });
        sockets.push(s);
        return s;
      });
      await Promise.all(clients.map(connected));
      for (const c of clients) expect(await c.emitWithAck('subscribe', { runId: run })).toMatchObject({ ok: true });
      const steps = clients.map(() => [] as number[]);
      const statuses = clients.map(() => [] as string[]);
      clients.forEach((c, i) => {
        c.on('metrics', (e: { step: number }) => steps[i]!.push(e.step));
        c.on('status', (e: { status: string }) => statuses[i]!.push(e.status));
      });
      // a worker's way (a notice a step) and an importer's way (one notice for steps 21–30)
      for (let step = 1; step <= 20; step++) await workerWritesStep(run, step, { 'train/success': step / 20 });
      await upsertMetricPoints(
        t.db,
        run,
        Array.from({ length: 10 }, (_, i) => ({ key: 'train/success', step: 21 + i, value: 1 })),
      );
      await publishRunNotice(t.db, { run, type: 'metrics', step: 30, from: 21 });
      // a cancel through the second instance reaches the first one's clients too
      await request(second.getHttpServer()).post(`/api/runs/${run}/cancel`).set('Authorization', owner.auth).expect(202);
      const all = Array.from({ length: 30 }, (_, i) => i + 1);
      await expect.poll(() => steps.map((s) => s.length), { timeout: 10_000 }).toEqual(clients.map(() => 30));
      await expect.poll(() => statuses.map((s) => s.length), { timeout: 10_000 }).toEqual(clients.map(() => 1));
      await new Promise((r) => setTimeout(r, 200)); // nothing arrives twice late
      expect(steps).toEqual(clients.map(() => all));
      expect(statuses).toEqual(clients.map(() => ['cancelled']));
    } finally {
      await second.close();
    }
  });

  it('refuses a connection without credentials', async () => {
    const anon = connect();
    const err = await new Promise<Error>((r) => anon.once('connect_error', r));
    expect(err.message).toBe('unauthorized');
    expect(anon.connected).toBe(false);
  });
});
