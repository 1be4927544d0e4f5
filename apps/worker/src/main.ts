import os from 'node:os';
import { settingsOrExit } from '@starpo/contracts';
import { createDb, releaseRun, RunQueue, startSweeper, takeNextRun } from '@starpo/db';
import { initBackend } from '@starpo/trainer';
import { WORKER_SHUTDOWN } from './db-sink.js';
import { startEnvDescriber } from './env-describer.js';
import { executeRun, LEASE_LOST } from './execute.js';
import { registerWorker, startHeartbeat } from './registration.js';
import { workerProcessSettings } from './settings.js';

// the environment is checked before anything starts: a bad value stops the worker with a line naming it
const settings = settingsOrExit('worker', workerProcessSettings);
const { databaseUrl, pollMs, staleMs, sweepMs, heartbeatMs } = settings;
/** SIGTERM/SIGINT: the current job stops and is requeued within this time (a training run with a checkpoint), else handed back as it is. */
const shutdownMs = settings.shutdownMs;
const db = createDb(databaseUrl, { max: 4 });
const queue = await new RunQueue(databaseUrl, { maintenance: true }).start();
const backend = await initBackend('auto', (m) => console.log(m));
const me = await registerWorker(db, {
  name: settings.name,
  backend: backend.name,
  engine: backend.engine,
  device: backend.gpu ? backend.device : `${os.cpus().length}× ${os.cpus()[0]?.model ?? 'cpu'} (${backend.device})`,
  hasGpu: backend.gpu,
});
let current: { id: string; lease: number } | null = null;
const stopHeartbeat = startHeartbeat(db, me.id, heartbeatMs, (e) => console.error(`heartbeat failed: ${e.message}`));
// Busy or idle, every worker sweeps: a dead worker's run is requeued even while all others train.
const sweeper = startSweeper(db, {
  staleMs,
  intervalMs: sweepMs,
  dispatch: (id, gpu) => queue.dispatch(id, gpu),
  onSwept: (r) => {
    if (r.requeued.length) console.log(`requeued runs without a heartbeat: ${r.requeued.join(', ')}`);
    if (r.cancelled.length) console.log(`cancelled runs without a heartbeat whose cancel was requested: ${r.cancelled.join(', ')}`);
  },
});
// registered environments are described here, never by the API: a worker is the only process that reaches them
const stopDescriber = startEnvDescriber(db, pollMs, (m) => console.log(m));
console.log(`worker ${me.name} registered (${me.id}); waiting for runs`);

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref())]);

const abort = new AbortController();
let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  const run = current;
  console.log(
    `worker ${me.name}: ${signal}; ${run ? `stopping run ${run.id} and requeueing it (at most ${shutdownMs} ms)` : 'going offline'}`,
  );
  abort.abort(WORKER_SHUTDOWN);
  setTimeout(() => void forceExit(), shutdownMs);
}
/** The bound of a shutdown: hand the run back without a new checkpoint (it resumes from its last one) and exit. */
async function forceExit(): Promise<void> {
  const run = current;
  console.error(`worker ${me.name}: shutdown took longer than ${shutdownMs} ms; exiting${run ? `, run ${run.id} handed back` : ''}`);
  if (run) await withTimeout(releaseRun(db, run.id, run.lease), 3000).catch((e) => console.error(`hand-back failed: ${e.message}`));
  await withTimeout(db.worker.update({ where: { id: me.id }, data: { status: 'offline', currentRunId: null } }), 2000).catch(() => {});
  process.exit(1);
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));

let backoffMs = 500;
while (!stopping) {
  try {
    const run = await takeNextRun(db, queue, me.id, backend.gpu);
    backoffMs = 500;
    if (!run) {
      await new Promise((r) => setTimeout(r, pollMs));
      continue;
    }
    current = { id: run.id, lease: run.leaseEpoch };
    await db.worker.update({ where: { id: me.id }, data: { status: 'busy', currentRunId: run.id } });
    const result = await executeRun(db, run, abort.signal, (m) => console.log(m), {
      cancelPollMs: Math.min(2000, heartbeatMs),
      worker: me.name,
      computeThreads: settings.computeThreads,
    });
    if (result.stopReason === WORKER_SHUTDOWN) {
      // back in the queue: announce it for another worker (the sweeps do it too)
      await withTimeout(queue.dispatch(run.id, run.needsGpu), 2000).catch(() => {});
      console.log(`run ${run.id}: stopped at step ${result.step} and requeued`);
    } else if (result.stopReason === LEASE_LOST) {
      console.error(`run ${run.id}: stopped, its lease is gone`);
    } else {
      console.log(`run ${run.id}: ${result.status} at step ${result.step}${result.stopReason ? ` (${result.stopReason})` : ''}`);
    }
    current = null;
    await db.worker.update({ where: { id: me.id }, data: { status: 'idle', currentRunId: null } });
  } catch (e) {
    // the database is away: keep the process, retry with backoff
    console.error(`worker loop: ${(e as Error).message}; retrying in ${backoffMs} ms`);
    await new Promise((r) => setTimeout(r, stopping ? 0 : backoffMs));
    backoffMs = Math.min(backoffMs * 2, 30_000);
  }
}
current = null;
stopHeartbeat();
stopDescriber();
sweeper.stop();
await withTimeout(db.worker.update({ where: { id: me.id }, data: { status: 'offline', currentRunId: null } }), 3000).catch(() => {});
await withTimeout(queue.stop(), 3000).catch(() => {});
await withTimeout(db.$disconnect(), 2000).catch(() => {});
console.log(`worker ${me.name}: stopped`);
process.exit(0);
