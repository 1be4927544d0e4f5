// heartbeat.test.ts runs this in a thread of its own: the sink of a worker woken after a takeover
// (its lease is stale), written to as the trainer would. A flush that spins (the bug this guards
// against) then holds only this thread, which the test ends and fails instead of hanging with it.
import { parentPort, workerData } from 'node:worker_threads';
import { createDb, isLeaseLost } from '@starpo/db';
// the built sink (npm test builds before it tests): a thread gets no TypeScript transform
import { DbSink } from '../dist/db-sink.js';

const { url, runId, lease } = workerData;
const db = createDb(url);
const owner = new DbSink(db, runId, lease);
const outcome = (p) =>
  p.then(
    () => 'stored',
    (e) => (isLeaseLost(e) ? 'lease lost' : `error: ${e.message}`),
  );
// the step's points go to the background flusher first, then the trajectories wait for it
await owner.metrics(2, { 'train/success': 0.75 });
const trajectories = await outcome(owner.trajectories(2, [], () => null));
const flush = await outcome(owner.flush());
const metrics = await outcome(owner.metrics(3, { 'train/success': 1 }));
await db.$disconnect();
parentPort.postMessage({ trajectories, flush, metrics });
