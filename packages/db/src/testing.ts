import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded.js';
import { createDb, type Db } from './client.js';
import { migrate } from './migrate.js';

const ADMIN_ENV = 'STARPO_TEST_ADMIN_URL';

/**
 * Vitest globalSetup: one Postgres server for the whole test run. Uses the server of
 * DATABASE_URL when set, else starts an embedded one in a temp dir. Test files then
 * call `freshDatabase()` for an isolated, migrated database of their own.
 */
export async function setupTestPostgres(): Promise<() => Promise<void>> {
  if (process.env.DATABASE_URL) {
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = '/postgres';
    process.env[ADMIN_ENV] = u.toString();
    return async () => {};
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-pg-'));
  chmodSync(dir, 0o755); // the server runs as the postgres user when we are root
  let server: EmbeddedDatabase | null = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'data'),
    ephemeral: true,
  });
  process.env[ADMIN_ENV] = server.adminUrl;
  return async () => {
    await server?.stop();
    server = null;
    rmSync(dir, { recursive: true, force: true });
  };
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new empty database on the test server; migrated unless `migrated: false`. */
export async function freshDatabase(opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = process.env[ADMIN_ENV];
  if (!adminUrl) throw new Error(`${ADMIN_ENV} is unset: add @starpo/db/testing's setupTestPostgres as vitest globalSetup`);
  const name = `starpo_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  if (opts.migrated ?? true) await migrate(url);
  return {
    url,
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestRun {
  db: Db;
  runId: string;
  close(): Promise<void>;
}

/** A fresh migrated database holding one team and one run, for tests of run-scoped queries. */
export async function databaseWithRun(environment = 'sokoban'): Promise<TestRun> {
  const t = await freshDatabase();
  const db = createDb(t.url);
  const team = await db.team.create({ data: { name: 'lab' } });
  const run = await db.run.create({ data: { teamId: team.id, name: 'r', config: {}, environment, algorithm: 'grpo', totalSteps: 1 } });
  return {
    db,
    runId: run.id,
    close: async () => {
      await db.$disconnect();
      await t.drop();
    },
  };
}
