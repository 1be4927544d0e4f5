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
