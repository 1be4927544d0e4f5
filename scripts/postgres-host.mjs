#!/usr/bin/env node
// Runs the embedded PostgreSQL for scripts/start.mjs, which spawns this detached: in a process group
// of its own, the database never gets the terminal's Ctrl-C, and the supervisor stops it last, after
// the workers have checkpointed and handed their runs back. Talks to the supervisor over IPC:
// sends { url, port, pid } once up; stops the database on 'stop', or when the supervisor is gone.
import { startEmbeddedPostgres } from '@starpo/db/embedded';

const { dataDir, port } = JSON.parse(process.argv[2]);
let db;
try {
  db = await startEmbeddedPostgres({ dataDir, port });
} catch (e) {
  process.send?.({ error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
}
process.send({ url: db.url, port: db.port, pid: db.pid });
// the server died (crash, kill): so does this host, and the supervisor starts another
void db.exited.then(() => process.exit(0));

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await db.stop();
  process.exit(0);
}
process.on('message', (m) => m === 'stop' && void stop());
process.on('disconnect', () => void stop());
