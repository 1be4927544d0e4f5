import os from 'node:os';
import { createDb } from '@starpo/db';
import { registerWorker, startHeartbeat } from './registration.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required (npm start sets it for the embedded database)');
  process.exit(2);
}
const db = createDb(databaseUrl, { max: 4 });
const me = await registerWorker(db, { backend: 'cpu', device: `${os.cpus().length}× ${os.cpus()[0]?.model ?? 'cpu'}`, hasGpu: false });
const stopHeartbeat = startHeartbeat(db, me.id, Number(process.env.WORKER_HEARTBEAT_MS ?? 10_000), (e) =>
  console.error(`heartbeat failed: ${e.message}`),
);
console.log(`worker ${me.name} registered (${me.id}); waiting for runs`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`worker ${me.name}: ${signal}, going offline`);
  stopHeartbeat();
  await db.worker.update({ where: { id: me.id }, data: { status: 'offline', currentRunId: null } }).catch(() => {});
  await db.$disconnect();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
// Keep the process alive between heartbeats (the heartbeat timer is unref'd).
setInterval(() => {}, 1 << 30);
