import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { finishEnvironmentDescribe } from '@starpo/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, otherTeamUser, signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

/** A server that answers nothing useful and records every request that reaches it. */
async function recordingServer(): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"recorded"}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** What a worker stores once the environment has answered GET /describe. */
const DESCRIPTION = {
  protocol: 1,
  name: 'frozenlake-gym',
  title: 'FrozenLake over HTTP',
  description: 'a lake',
  instructions: 'reach the goal',
  configSchema: { type: 'object', properties: { slippery: { type: 'boolean' } } },
  limits: { maxTurns: 5, maxActionsPerTurn: 5, maxActionsPerTraj: 10 },
  legend: 'P: player',
  claims: false,
};

describe('registered environments', () => {
  const root = '/srv/starpo-envs-that-need-not-exist';
  const saved = process.env.ENV_ROOTS;
  let t: TestApi;
  let recorder: Awaited<ReturnType<typeof recordingServer>>;
  let owner: TestUser;
  let member: TestUser;
  let viewer: TestUser;
  let rival: TestUser;
  const register = (u: TestUser, body: unknown) =>
    t.http
      .post('/api/envs')
      .set('Authorization', u.auth)
      .send(body as object);
  const list = async (u: TestUser) => (await t.http.get('/api/envs').set('Authorization', u.auth).expect(200)).body as { name: string }[];
  const launch = (u: TestUser, env: object) =>
    t.http
      .post('/api/runs')
      .set('Authorization', u.auth)
      .send({ preset: 'quick-cpu', config: { env, model: { base: 'starpo-base/frozenlake-tiny' } } });

  beforeAll(async () => {
    // read once by the database package, before the app first asks for it
    process.env.ENV_ROOTS = root;
    recorder = await recordingServer();
    t = await startTestApi();
    owner = await signupOwner(t);
    member = await joinAs(t, owner, 'member', 'member@lab.test');
    viewer = await joinAs(t, owner, 'viewer', 'viewer@lab.test');
    rival = await otherTeamUser(t);
  });
  afterAll(async () => {
    process.env.ENV_ROOTS = saved;
    await t.close();
    await recorder.close();
  });

  it('a registered URL is never fetched by the API: not at registration, listing, launch or removal', async () => {
    const made = await register(member, { name: 'lake-http', url: recorder.url }).expect(201);
    expect(made.body).toMatchObject({
      name: 'lake-http',
      source: 'registered',
      registration: { status: 'pending', error: null, endpoint: { url: recorder.url } },
    });
    const pending = (await list(viewer)).find((e) => e.name === 'lake-http');
    expect(pending).toMatchObject({ title: 'lake-http', configSchema: null, registration: { status: 'pending' } });
    // no preview of it: that would be a request on the caller's behalf
    await t.http.get('/api/envs/lake-http/preview').expect(404);
    const early = await launch(member, { name: 'lake-http' }).expect(400);
    expect(early.body.details).toEqual([
      { path: 'env.name', message: 'environment "lake-http" is not ready: no worker has described it yet' },
    ]);

    // a worker's answer, stored as the worker stores it
    const row = await t.db.environment.findFirstOrThrow({ where: { name: 'lake-http' } });
    expect(row.claimedAt).toBeNull();
    await finishEnvironmentDescribe(t.db, row.id, { description: DESCRIPTION });
    const ready = (await list(owner)).find((e) => e.name === 'lake-http');
    expect(ready).toMatchObject({
      title: 'FrozenLake over HTTP',
      legend: 'P: player',
      rolloutDefaults: DESCRIPTION.limits,
      configSchema: DESCRIPTION.configSchema,
      registration: { status: 'ready' },
    });

    // a run names it; the API writes its address into the config for a worker to reach
    const run = await launch(member, { name: 'lake-http', config: { slippery: true }, remote: { timeoutMs: 5000 } }).expect(201);
    expect(run.body).toMatchObject({ environment: 'lake-http' });
    expect(run.body.config.env).toMatchObject({
      name: 'lake-http',
      config: { slippery: true },
      remote: { url: recorder.url, timeoutMs: 5000, retries: 2 },
    });
    await t.http.delete('/api/envs/lake-http').set('Authorization', member.auth).expect(204);
    expect((await list(owner)).some((e) => e.name === 'lake-http')).toBe(false);
    await t.http.delete('/api/envs/lake-http').set('Authorization', member.auth).expect(404);

    expect(recorder.hits).toEqual([]);
    // the recorder does record: a request from this test reaches it
    await fetch(`${recorder.url}/describe`).catch(() => {});
    expect(recorder.hits).toEqual(['GET /describe']);
    recorder.hits.length = 0;
  });

  it('a failed description is shown, and a run cannot use it', async () => {
    await register(owner, { name: 'broken', url: 'http://127.0.0.1:9/' }).expect(201);
    const row = await t.db.environment.findFirstOrThrow({ where: { name: 'broken' } });
    await finishEnvironmentDescribe(t.db, row.id, { error: 'GET http://127.0.0.1:9/describe: connection refused' });
    expect((await list(owner)).find((e) => e.name === 'broken')).toMatchObject({
      registration: { status: 'failed', error: 'GET http://127.0.0.1:9/describe: connection refused' },
    });
    const res = await launch(owner, { name: 'broken' }).expect(400);
    expect(res.body.details[0]).toEqual({
      path: 'env.name',
      message: 'environment "broken" is not ready: its description failed: GET http://127.0.0.1:9/describe: connection refused',
    });
  });

  it('refuses bad registrations with a 400 naming the field, and a taken name with a 409', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'no-address' }, 'url'],
      [{ name: 'both', url: recorder.url, command: ['python3'], cwd: root }, 'url'],
      [{ name: 'Bad Name', url: recorder.url }, 'name'],
      [{ name: 'ftp', url: 'ftp://127.0.0.1/' }, 'url'],
      [{ name: 'no-cwd', command: ['python3', 'server.py'] }, 'cwd'],
      [{ name: 'relative', command: ['python3', 'server.py'], cwd: 'envs/lake' }, 'cwd'],
      [{ name: 'outside', command: ['python3', 'server.py'], cwd: '/etc' }, 'cwd'],
      [{ name: 'escape', command: ['python3', 'server.py'], cwd: `${root}/../../etc` }, 'cwd'],
      [{ name: 'extra', url: recorder.url, token: 'x' }, '(root)'],
    ];
    for (const [body, field] of cases) {
      const res = await register(owner, body).expect(400);
      expect(res.body.error, JSON.stringify(body)).toBe('validation_failed');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    const outside = await register(owner, { name: 'outside', command: ['python3', 'server.py'], cwd: '/etc' }).expect(400);
    expect(outside.body.details).toEqual([{ path: 'cwd', message: '"/etc" is not a folder under ENV_ROOTS' }]);

    const inside = await register(owner, { name: 'lake-cmd', command: ['python3', 'server.py'], cwd: `${root}/lake/../lake` }).expect(201);
    expect(inside.body.registration.endpoint).toEqual({ command: ['python3', 'server.py'], cwd: path.join(root, 'lake') });
    const again = await register(member, { name: 'lake-cmd', url: recorder.url }).expect(409);
    expect(again.body).toEqual({ error: 'conflict', message: 'the team has an environment named "lake-cmd"', details: [] });
    const builtin = await register(owner, { name: 'frozenlake', url: recorder.url }).expect(409);
    expect(builtin.body.message).toBe('"frozenlake" is a built-in environment; choose another name');
    expect(recorder.hits).toEqual([]);
  });

  it('viewers list, members register and remove, and a team sees only its own', async () => {
    // signed out: the built-ins only (the environment gallery is public), never a team's registrations
    const visitor = (await t.http.get('/api/envs').expect(200)).body as { name: string }[];
    expect(visitor.map((e) => e.name)).toEqual(['sokoban', 'frozenlake', 'bandit', 'countdown']);
    expect((await list(viewer)).map((e) => e.name)).toEqual(expect.arrayContaining(['sokoban', 'frozenlake', 'bandit', 'countdown']));
    await register(viewer, { name: 'viewers', url: recorder.url }).expect(403);
    await register(member, { name: 'shared-name', url: recorder.url }).expect(201);
    await t.http.delete('/api/envs/shared-name').set('Authorization', viewer.auth).expect(403);

    // another team: none of ours listed, removable or launchable; the same name is free for it
    expect((await list(rival)).some((e) => e.name === 'shared-name')).toBe(false);
    await t.http.delete('/api/envs/shared-name').set('Authorization', rival.auth).expect(404);
    const theirs = await launch(rival, { name: 'shared-name' }).expect(400);
    expect(theirs.body.details[0]).toMatchObject({
      path: 'env.name',
      message: expect.stringContaining('unknown environment "shared-name"'),
    });
    await register(rival, { name: 'shared-name', url: 'http://127.0.0.1:9' }).expect(201);
    expect((await list(owner)).filter((e) => e.name === 'shared-name')).toMatchObject([
      { registration: { endpoint: { url: recorder.url } } },
    ]);
    await t.http.delete('/api/envs/shared-name').set('Authorization', member.auth).expect(204);
    expect((await list(rival)).some((e) => e.name === 'shared-name')).toBe(true);
    expect(recorder.hits).toEqual([]);
  });
});
