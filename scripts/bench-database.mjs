// The Postgres a benchmark runs on: a scratch database on DATABASE_URL's server when it is set, else an
// embedded server in a temp dir. `close()` stops and removes what was started here.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
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
