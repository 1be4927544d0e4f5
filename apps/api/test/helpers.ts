import type { INestApplication } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { createDb, type Db } from '@starpo/db';
import { freshDatabase, type TestDatabase } from '@starpo/db/testing';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createApp } from '../src/bootstrap.js';
import type { ApiSettings } from '../src/di-tokens.js';

export const WEB_ORIGIN = 'http://localhost:3000';

/** A migrated fresh database, the Nest app on top of it, and a Prisma client for direct checks. */
export interface TestApi {
  app: INestApplication;
  http: ReturnType<typeof request>;
  db: Db;
  database: TestDatabase;
  close(): Promise<void>;
}

export async function startTestApi(settings: Partial<ApiSettings> = {}): Promise<TestApi> {
  const database = await freshDatabase();
  const app = await createApp({ databaseUrl: database.url, webOrigin: WEB_ORIGIN, ...settings }, { logger: false });
  await app.init();
  const db = createDb(database.url);
  return {
    app,
    http: request(app.getHttpServer()),
    db,
    database,
    close: async () => {
      await app.close();
      await db.$disconnect();
      await database.drop();
    },
  };
}

/** The test API listening on a free local port (for socket.io clients), with its URL. */
export type ListeningTestApi = TestApi & { url: string };

export async function listeningTestApi(): Promise<ListeningTestApi> {
  const t = await startTestApi();
  await t.app.listen(0, '127.0.0.1');
  return { ...t, url: `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}` };
}

/** A user with a bearer token: `auth` is the header value to send. */
export interface TestUser {
  userId: string;
  teamId: string;
  token: string;
  auth: string;
  cookie: string;
}

/** The first account of a fresh deployment (team owner), with an API token. */
export async function signupOwner(t: TestApi, email = 'owner@lab.test'): Promise<TestUser> {
  const res = await t.http.post('/api/auth/signup').send({ email, password: 'correct horse', name: 'Owner', teamName: 'lab' }).expect(201);
  return withToken(t, res);
}

/** Join the owner's team through an invite with `role`. */
export async function joinAs(t: TestApi, owner: TestUser, role: 'member' | 'viewer' | 'owner', email: string): Promise<TestUser> {
  const inv = await t.http.post('/api/team/invites').set('Authorization', owner.auth).send({ role }).expect(201);
  const res = await t.http
    .post('/api/auth/signup')
    .send({ email, password: 'correct horse', name: role, invite: inv.body.token })
    .expect(201);
  return withToken(t, res);
}

async function withToken(t: TestApi, res: request.Response): Promise<TestUser> {
  const cookie = String(res.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
  const tok = await t.http.post('/api/tokens').set('Cookie', cookie).send({ name: 'tests' }).expect(201);
  return { userId: res.body.user.id, teamId: res.body.team.id, token: tok.body.token, auth: `Bearer ${tok.body.token}`, cookie };
}

/** A member of a second team (made directly in the database: signup only ever joins the first team). */
export async function otherTeamUser(t: TestApi): Promise<TestUser> {
  const { hashSecret, newSecret } = await import('../src/auth/secrets.js');
  const team = await t.db.team.create({ data: { name: 'rivals' } });
  const user = await t.db.user.create({ data: { email: `rival-${team.id}@other.test`, name: 'Rival', passwordHash: 'x' } });
  await t.db.membership.create({ data: { userId: user.id, teamId: team.id, role: 'owner' } });
  const token = newSecret('stp_');
  await t.db.apiToken.create({
    data: { userId: user.id, teamId: team.id, name: 't', tokenHash: hashSecret(token), prefix: token.slice(0, 10) },
  });
  return { userId: user.id, teamId: team.id, token, auth: `Bearer ${token}`, cookie: '' };
}

/** One turn of an external run's trajectory: a well-formed reply with its think text and one action. */
export const reply = (think: string, answer: string) => ({
  rawReply: `<think>${think}</think><answer>${answer}</answer>`,
  think,
  answer,
  actions: [answer],
  reward: -0.1,
});

/** Runs a command without blocking this process (the API under test answers from it): its exit code and output. */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd, env: { ...process.env, ...opts.env }, maxBuffer: 16 << 20, timeout: 300_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}
