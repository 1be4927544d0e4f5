import os from 'node:os';
import { claimNextRun, createDb, requeueStaleRuns } from '@starpo/db';
import { initBackend } from '@starpo/trainer';
import { executeRun, USER_CANCEL } from './execute.js';
import { registerWorker, startHeartbeat } from './registration.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required (npm start sets it for the embedded database)');
  process.exit(2);
}
const pollMs = Number(process.env.WORKER_POLL_MS ?? 2000);
const staleMs = Number(process.env.WORKER_STALE_MS ?? 60_000);
const db = createDb(databaseUrl, { max: 4 });
const backend = await initBackend('auto', (m) => console.log(m));
const me = await registerWorker(db, {
  backend: backend.name,
  device: backend.gpu ? backend.device : `${os.cpus().length}× ${os.cpus()[0]?.model ?? 'cpu'} (${backend.device})`,
  hasGpu: backend.gpu,
});
let currentRun: string | null = null;
const stopHeartbeat = startHeartbeat(
  db,
  me.id,
  Number(process.env.WORKER_HEARTBEAT_MS ?? 10_000),
  (e) => console.error(`heartbeat failed: ${e.message}`),
  () => currentRun,
);
console.log(`worker ${me.name} registered (${me.id}); waiting for runs`);

const abort = new AbortController();
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`worker ${me.name}: ${signal}, ${currentRun ? 'checkpointing the current run' : 'going offline'}`);
  abort.abort('worker shutting down');
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

while (!stopping) {
  const stale = await requeueStaleRuns(db, staleMs).catch(() => []);
  if (stale.length) console.log(`requeued runs without a heartbeat: ${stale.join(', ')}`);
  const run = await claimNextRun(db, me.id, backend.gpu).catch((e: Error) => {
    console.error(`claim failed: ${e.message}`);
    return null;
  });
  if (!run) {
    await new Promise((r) => setTimeout(r, pollMs));
    continue;
  }
  currentRun = run.id;
  await db.worker.update({ where: { id: me.id }, data: { status: 'busy', currentRunId: run.id } });
  const result = await executeRun(db, run, abort.signal, (m) => console.log(m));
  if (result.status === 'cancelled' && stopping && result.stopReason !== USER_CANCEL) {
    // SIGTERM: the checkpoint is saved; hand the run back to the queue for another worker
    await db.run.update({
      where: { id: run.id },
      data: { status: 'queued', workerId: null, stopReason: null, finishedAt: null, resumeCount: { increment: 1 } },
    });
  }
  console.log(`run ${run.id}: ${result.status} at step ${result.step}${result.stopReason ? ` (${result.stopReason})` : ''}`);
  currentRun = null;
  await db.worker.update({ where: { id: me.id }, data: { status: 'idle', currentRunId: null } });
}
stopHeartbeat();
await db.worker.update({ where: { id: me.id }, data: { status: 'offline', currentRunId: null } }).catch(() => {});
await db.$disconnect();
process.exit(0);
