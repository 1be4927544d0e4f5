// heartbeat.test.ts runs this in a thread of its own: it reads the heartbeats on its own event loop
// and connection, so a worker loop held by synchronous work cannot hold back the sampling too.
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';

const { url, runId, workerId, everyMs } = workerData;
const client = new pg.Client({ connectionString: url });
await client.connect();
const samples = [];
let stopped = false;
parentPort.on('message', () => (stopped = true));
while (!stopped) {
  const { rows } = await client.query(
    `SELECT extract(epoch FROM (SELECT last_heartbeat FROM workers WHERE id = $2::uuid))::float8 AS worker,
            extract(epoch FROM (SELECT heartbeat_at FROM runs WHERE id = $1::uuid))::float8 AS run`,
    [runId, workerId],
  );
  samples.push(rows[0]);
  await new Promise((r) => setTimeout(r, everyMs));
}
await client.end();
parentPort.removeAllListeners('message'); // the thread ends once the samples are sent
parentPort.postMessage(samples);
