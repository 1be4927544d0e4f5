import os from 'node:os';
import { claimRun, createDb, queuedRuns, requeueStaleRuns, RunQueue } from '@starpo/db';
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
const sweepMs = Number(process.env.WORKER_SWEEP_MS ?? Math.min(15_000, staleMs / 4));
const db = createDb(databaseUrl, { max: 4 });
const queue = await new RunQueue(databaseUrl, { maintenance: true }).start();
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

/** Requeue runs whose worker died, and re-announce queued runs whose dispatch was lost (duplicates are dropped). */
async function sweep(): Promise<void> {
  const stale = await requeueStaleRuns(db, staleMs);
  if (stale.length) console.log(`requeued runs without a heartbeat: ${stale.join(', ')}`);
  for (const r of await queuedRuns(db)) await queue.dispatch(r.id, r.needsGpu);
}

let lastSweep = 0;
let backoffMs = 500;
while (!stopping) {
  try {
    if (Date.now() - lastSweep > sweepMs) {
      await sweep();
      lastSweep = Date.now();
    }
    const job = await queue.fetch(backend.gpu);
    backoffMs = 500;
    if (!job) {
      await new Promise((r) => setTimeout(r, pollMs));
      continue;
    }
    const run = await claimRun(db, job.runId, me.id, backend.gpu);
    await queue.complete(job);
    if (!run) continue; // cancelled, deleted or taken meanwhile: the row decides
    currentRun = run.id;
    await db.worker.update({ where: { id: me.id }, data: { status: 'busy', currentRunId: run.id } });
    const result = await executeRun(db, run, abort.signal, (m) => console.log(m), { worker: me.name });
    if (result.status === 'cancelled' && stopping && result.stopReason !== USER_CANCEL) {
      // SIGTERM: the checkpoint is saved; hand the run back to the queue for another worker
      await db.run.update({
        where: { id: run.id },
        data: { status: 'queued', workerId: null, stopReason: null, finishedAt: null, resumeCount: { increment: 1 } },
      });
      await queue.dispatch(run.id, run.needsGpu);
    }
    console.log(`run ${run.id}: ${result.status} at step ${result.step}${result.stopReason ? ` (${result.stopReason})` : ''}`);
    currentRun = null;
    await db.worker.update({ where: { id: me.id }, data: { status: 'idle', currentRunId: null } });
  } catch (e) {
    // the database is away: keep the process, retry with backoff
    console.error(`worker loop: ${(e as Error).message}; retrying in ${backoffMs} ms`);
    await new Promise((r) => setTimeout(r, backoffMs));
    backoffMs = Math.min(backoffMs * 2, 30_000);
  }
}
stopHeartbeat();
await db.worker.update({ where: { id: me.id }, data: { status: 'offline', currentRunId: null } }).catch(() => {});
await queue.stop().catch(() => {});
await db.$disconnect();
process.exit(0);
