import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, insertEnvironment, type Db } from '@starpo/db';
import { freshDatabase, type TestDatabase } from '@starpo/db/testing';
import { CountdownServer } from '@starpo/envs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePendingEnvironments } from '../src/env-describer.js';

const PYTHON_CLIENT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../clients/python');

/** Answers GET /describe with Countdown's description, or with the protocol's error shape; records each request. */
async function describeServer(answer: 'describe' | 'error'): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (answer === 'error')
      return res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"lake frozen solid"}}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(new CountdownServer().describe()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('a worker describes registered environments', () => {
  let database: TestDatabase;
  let db: Db;
  let teamId: string;
  const closers: (() => Promise<void>)[] = [];
  const status = async (name: string) => db.environment.findFirstOrThrow({ where: { teamId, name } });

  beforeAll(async () => {
    database = await freshDatabase();
    db = createDb(database.url);
    teamId = (await db.team.create({ data: { name: 'lab' } })).id;
  });
  afterAll(async () => {
    for (const c of closers) await c();
    await db.$disconnect();
    await database.drop();
  });

  it('a pending URL becomes ready with its description, or failed with the environment’s own error', async () => {
    const good = await describeServer('describe');
    const bad = await describeServer('error');
    closers.push(good.close, bad.close);
    await insertEnvironment(db, { teamId, name: 'countdown-http', createdBy: teamId, url: good.url });
    await insertEnvironment(db, { teamId, name: 'frozen', createdBy: teamId, url: bad.url });
    expect((await status('countdown-http')).status).toBe('pending');

    expect(await describePendingEnvironments(db, [])).toBe(2);
    expect(good.hits).toEqual(['GET /describe']);
    expect(await status('countdown-http')).toMatchObject({
      status: 'ready',
      error: null,
      description: { name: 'countdown', title: 'Countdown', limits: { maxTurns: 1 } },
    });
    const failed = await status('frozen');
    expect(failed).toMatchObject({ status: 'failed', description: null });
    expect(failed.error).toBe(`GET ${bad.url}/describe: answered 500: lake frozen solid`);
    // nothing is pending any more: nothing is asked again
    expect(await describePendingEnvironments(db, [])).toBe(0);
    expect(good.hits).toHaveLength(1);
  });

  it('a command runs only from a folder under this worker’s ENV_ROOTS', async () => {
    await insertEnvironment(db, { teamId, name: 'outside', createdBy: teamId, command: ['python3', 'server.py'], cwd: '/etc' });
    expect(await describePendingEnvironments(db, [PYTHON_CLIENT])).toBe(1);
    expect(await status('outside')).toMatchObject({
      status: 'failed',
      error: `cwd "/etc" is not a folder under this worker's ENV_ROOTS once links are followed`,
    });
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!python)('describes the Python FrozenLake server by starting its command, then stops it', async () => {
    const command = ['python3', '-m', 'examples.frozenlake_server'];
    await insertEnvironment(db, { teamId, name: 'lake-py', createdBy: teamId, command, cwd: PYTHON_CLIENT });
    expect(await describePendingEnvironments(db, [PYTHON_CLIENT])).toBe(1);
    expect(await status('lake-py')).toMatchObject({
      status: 'ready',
      description: { name: 'frozenlake-gym', legend: 'P: player, _: empty, O: hole, G: goal', limits: { maxTurns: 5 } },
    });
  });
  if (!python) it('SKIPPED the Python FrozenLake server: python3 is not installed', () => expect(python).toBe(false));
});
