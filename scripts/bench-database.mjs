// The Postgres a benchmark runs on: a scratch database on DATABASE_URL's server when it is set, else an
// embedded server in a temp dir. `close()` stops and removes what was started here.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDatabase, startEmbeddedPostgres } from '@starpo/db/embedded';

export async function benchDatabase() {
  const given = process.env.DATABASE_URL;
  if (given) {
    const u = new URL(given);
    const name = `starpo_bench_${Date.now()}`;
    u.pathname = '/postgres';
    await ensureDatabase(u.toString(), name);
    u.pathname = `/${name}`;
    return { url: u.toString(), embedded: false, close: async () => {} };
  }
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'starpo-bench-'));
  chmodSync(tmp, 0o755); // the server runs as the postgres user when we are root
  const server = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'data'), ephemeral: true });
  return {
    url: server.url,
    embedded: true,
    close: async () => {
      await server.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * CPU seconds used so far by every process named `postgres` on this machine (Linux /proc; null
 * elsewhere): read before and after a measurement, it says what the database cost beside the API.
 */
export function postgresCpuSeconds() {
  let dirs;
  try {
    dirs = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  let ticks = 0;
  for (const pid of dirs) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // the process ended while we read
    }
  }
  return ticks / 100; // USER_HZ is 100 on Linux
}

/**
 * The API (createApp with `settings`) on a migrated bench database, listening on a free local port,
 * and the deployment's first account signed up: its URL, the owner's session cookie, a client of
 * its own of `dbMax` connections for seeding, and `close()` for all of it.
 */
export async function benchApi(settings = {}, { dbMax = 8, logger = false } = {}) {
  const { createApp } = await import('@starpo/api/bootstrap');
  const { createDb, migrate } = await import('@starpo/db');
  const database = await benchDatabase();
  await migrate(database.url);
  const db = createDb(database.url, { max: dbMax });
  const app = await createApp({ databaseUrl: database.url, webOrigin: 'http://localhost:3000', ...settings }, { logger });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
  const signup = await fetch(`${base}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@lab.test', password: 'correct horse', name: 'Bench' }),
  });
  const cookie = signup.headers.get('set-cookie').split(';')[0];
  const close = async () => {
    await app.close();
    await db.$disconnect();
    await database.close();
  };
  return { database, db, app, base, cookie, close };
}
