import { mkdtempSync, cpSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, createDb, loadMigrations, migrate, migrationStatus, upsertMetricPoints } from '../src/index.js';
import { freshDatabase, type TestDatabase } from '../src/testing.js';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

describe('migrations on an empty database', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase({ migrated: false });
  });
  afterAll(() => db.drop());

  it('apply every migration and record it the way Prisma does', async () => {
    const status = await migrate(db.url);
    expect(status.applied).toEqual(loadMigrations().map((m) => m.name));
    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date; applied_steps_count: number; id: string }>(
      db.url,
      'SELECT * FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows).toHaveLength(loadMigrations().length);
    expect(rows[0]).toMatchObject({ checksum: loadMigrations()[0]!.checksum, applied_steps_count: 1 });
    expect(rows[0]!.finished_at).toBeInstanceOf(Date);
    expect(rows[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    const tables = (await query<{ tablename: string }>(db.url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).map(
      (r) => r.tablename,
    );
    expect(tables).toEqual(
      expect.arrayContaining([
        'runs',
        'metric_blocks',
        'trajectories',
        'turns',
        'checkpoints',
        'checkpoint_chunks',
        'users',
        'teams',
        'workers',
      ]),
    );
  });

  it('applying twice is a no-op', async () => {
    const again = await migrate(db.url);
    expect(again.applied).toEqual([]);
    const status = await migrationStatus((sql) => query(db.url, sql));
    expect(status.pending).toEqual([]);
  });

  it('refuses a migration file changed after it was applied', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mig-'));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    appendFileSync(path.join(dir, loadMigrations()[0]!.name, 'migration.sql'), '\n-- edited\n');
    await expect(migrate(db.url, { dir })).rejects.toThrow(/modified after it was applied/);
  });
});

describe('concurrent start-ups', () => {
  it('apply each migration exactly once under the advisory lock', async () => {
    const db = await freshDatabase({ migrated: false });
    try {
      const results = await Promise.all([migrate(db.url), migrate(db.url), migrate(db.url)]);
      expect(results.map((r) => r.applied.length).sort()).toEqual([0, 0, loadMigrations().length]);
      const rows = await query(db.url, 'SELECT 1 FROM "_prisma_migrations"');
      expect(rows).toHaveLength(loadMigrations().length);
    } finally {
      await db.drop();
    }
  });

  it('a failing migration is recorded with its error and blocks later runs', async () => {
    const db = await freshDatabase({ migrated: false });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mig-'));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(path.join(dir, '99990101000000_broken'));
    writeFileSync(path.join(dir, '99990101000000_broken', 'migration.sql'), 'CREATE TABLE x (id int); SELECT * FROM no_such_table;');
    try {
      await expect(migrate(db.url, { dir })).rejects.toThrow(/99990101000000_broken failed/);
      const rows = await query<{ logs: string; finished_at: Date | null }>(
        db.url,
        `SELECT logs, finished_at FROM "_prisma_migrations" WHERE migration_name = '99990101000000_broken'`,
      );
      expect(rows[0]).toMatchObject({ finished_at: null, logs: expect.stringMatching(/no_such_table/) });
      expect(await query(db.url, "SELECT 1 FROM pg_tables WHERE tablename = 'x'")).toHaveLength(0);
      await expect(migrate(db.url, { dir })).rejects.toThrow(/failed earlier/);
    } finally {
      await db.drop();
    }
  });
});

describe('prisma client on the migrated schema', () => {
  it('stores runs, upserts metric points on run+key+step, and cascades deletes', async () => {
    const t = await freshDatabase();
    const db = createDb(t.url);
    try {
      const team = await db.team.create({ data: { name: 'lab' } });
      const run = await db.run.create({
        data: { teamId: team.id, name: 'r1', config: { a: 1 }, environment: 'sokoban', algorithm: 'gae' },
      });
      expect(run.status).toBe('queued');
      await upsertMetricPoints(db, run.id, [{ key: 'train/success', step: 0, value: 0.1 }]);
      await upsertMetricPoints(db, run.id, [{ key: 'train/success', step: 0, value: 0.2 }]);
      // metric_points is a view over the blocks: one point a run, key and step, the last one written
      expect(await db.metricPoint.findMany({ select: { step: true, value: true } })).toEqual([{ step: 0, value: 0.2 }]);
      const ck = await db.checkpoint.create({
        data: { runId: run.id, step: 1, kind: 'policy', format: 'safetensors', sizeBytes: 3n, sha256: 'x' },
      });
      await db.checkpointChunk.create({ data: { checkpointId: ck.id, index: 0, data: new Uint8Array([1, 2, 3]) } });
      const chunk = await db.checkpointChunk.findFirstOrThrow({ where: { checkpointId: ck.id } });
      expect([...chunk.data]).toEqual([1, 2, 3]);
      await db.run.delete({ where: { id: run.id } });
      expect(await db.metricPoint.count()).toBe(0);
      expect(await db.metricBlock.count()).toBe(0);
      expect(await db.checkpointChunk.count()).toBe(0);
    } finally {
      await db.$disconnect();
      await t.drop();
    }
  });
});

describe('upgrading a database that holds metric points', () => {
  it('moves every point into its 64-step block unchanged, with the block extremes', async () => {
    const t = await freshDatabase({ migrated: false });
    try {
      // the schema just before metric_blocks, with points written the old way (one row each)
      const dir = mkdtempSync(path.join(os.tmpdir(), 'mig-'));
      cpSync(MIGRATIONS_DIR, dir, {
        recursive: true,
        filter: (src) => !src.includes('metric_blocks'),
      });
      await migrate(t.url, { dir });
      const [run] = await query<{ id: string }>(
        t.url,
        `WITH team AS (INSERT INTO teams (id, name) VALUES (gen_random_uuid(), 'lab') RETURNING id)
         INSERT INTO runs (id, team_id, name, config, environment, algorithm, updated_at)
         SELECT gen_random_uuid(), id, 'old', '{}', 'bandit', 'grpo', now() FROM team RETURNING id::text`,
      );
      // two keys, out of order, across three blocks, one lease missing (an ingested point)
      await query(
        t.url,
        `INSERT INTO metric_points (run_id, key, step, value, wall_time, lease)
         SELECT '${run!.id}', 'k' || (s % 2), s, sin(s) * 10, to_timestamp(1700000000 + s / 1000.0), CASE WHEN s = 7 THEN NULL ELSE 3 END
         FROM generate_series(150, 0, -1) AS s`,
      );
      const before = await query(t.url, `SELECT key, step, value, wall_time, lease FROM metric_points ORDER BY key, step`);
      await migrate(t.url);
      expect(await query(t.url, `SELECT key, step, value, wall_time, lease FROM metric_points ORDER BY key, step`)).toEqual(before);
      const blocks = await query<{ key: string; bucket: number; n: number; first_step: number; last_step: number; max_step: number }>(
        t.url,
        `SELECT key, bucket, n, first_step, last_step, max_step FROM metric_blocks ORDER BY key, bucket`,
      );
      expect(blocks.map((b) => [b.key, b.bucket, b.n, b.first_step, b.last_step])).toEqual([
        ['k0', 0, 32, 0, 62],
        ['k0', 1, 32, 64, 126],
        ['k0', 2, 12, 128, 150],
        ['k1', 0, 32, 1, 63],
        ['k1', 1, 32, 65, 127],
        ['k1', 2, 11, 129, 149],
      ]);
      // each block's highest point, found again from the old rows
      const old = before as { key: string; step: number; value: number }[];
      for (const b of blocks) {
        const pts = old.filter((p) => p.key === b.key && p.step >> 6 === b.bucket);
        expect(b.max_step).toBe(pts.reduce((m, p) => (p.value >= m.value ? p : m)).step);
      }
    } finally {
      await t.drop();
    }
  });
});
