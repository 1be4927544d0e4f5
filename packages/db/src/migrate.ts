import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** Prisma Migrate's own advisory-lock key, so our runner and `prisma migrate deploy` exclude each other. */
const PRISMA_ADVISORY_LOCK = 72707369;

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../prisma/migrations');

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

/** Migration folders in name order, each with the sha256 of its migration.sql (as Prisma computes it). */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

interface Row {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/**
 * Apply pending SQL migrations offline, under Prisma's advisory lock, recording each in
 * `_prisma_migrations` exactly as `prisma migrate deploy` does. Applying twice is a no-op.
 * Refuses to run over a failed migration or one whose file changed after it was applied.
 */
export async function migrate(databaseUrl: string, opts: { dir?: string; log?: (msg: string) => void } = {}): Promise<MigrationStatus> {
  const migrations = loadMigrations(opts.dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
    try {
      await client.query(CREATE_TABLE);
      const { rows } = await client.query<Row>(
        'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
      );
      const done = new Map(rows.map((r) => [r.migration_name, r]));
      for (const r of rows) {
        if (!r.finished_at)
          throw new Error(
            `migration ${r.migration_name} failed earlier; fix the database, then mark it rolled back (rolled_back_at) to retry`,
          );
      }
      const applied: string[] = [];
      for (const m of migrations) {
        const prev = done.get(m.name);
        if (prev) {
          if (prev.checksum !== m.checksum) throw new Error(`migration ${m.name} was modified after it was applied (checksum mismatch)`);
          continue;
        }
        const id = randomUUID();
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
          [id, m.checksum, m.name],
        );
        try {
          await client.query('BEGIN');
          await client.query(m.sql);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK');
          await client.query('UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1', [id, String((e as Error).message)]);
          throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
        }
        await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
        opts.log?.(`applied migration ${m.name}`);
        applied.push(m.name);
      }
      return { applied, pending: [] };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK]);
    }
  } finally {
    await client.end();
  }
}

/** Which migrations the database has and which are pending (what `GET /health` reports). */
export async function migrationStatus(
  query: (sql: string) => Promise<{ migration_name: string }[]>,
  dir?: string,
): Promise<MigrationStatus> {
  const names = loadMigrations(dir).map((m) => m.name);
  let rows: { migration_name: string }[] = [];
  try {
    rows = await query('SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL');
  } catch {
    rows = [];
  }
  const applied = new Set(rows.map((r) => r.migration_name));
  return { applied: names.filter((n) => applied.has(n)), pending: names.filter((n) => !applied.has(n)) };
}
