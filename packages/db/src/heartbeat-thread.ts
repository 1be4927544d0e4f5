import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { HEARTBEAT_SQL, type HeartbeatRow } from './queries/heartbeat-sql.js';
import type { HeartbeatInit, HeartbeatReport } from './heartbeat.js';

/**
 * A run's heartbeat on a thread and a connection of its own, so that training or environment work
 * holding the worker's event loop can neither starve it (and get a live run requeued as stale) nor
 * delay the news of a cancel or a lost lease. Ends on a 'stop' message.
 */
const init = workerData as HeartbeatInit;
let client: pg.Client | null = null;
let stopped = false;
let timer: NodeJS.Timeout | undefined;

async function beat(): Promise<void> {
  try {
    if (!client) {
      client = new pg.Client({ connectionString: init.databaseUrl, connectionTimeoutMillis: 2_000, query_timeout: 4_000 });
      client.on('error', () => {}); // a broken connection is replaced at the next beat
      await client.connect();
    }
    const { rows } = await client.query<HeartbeatRow>(HEARTBEAT_SQL, [init.runId, init.lease]);
    const report: HeartbeatReport = rows[0]
      ? { lost: false, cancelRequested: rows[0].cancel, stopReason: rows[0].stop_reason }
      : { lost: true, cancelRequested: false, stopReason: null };
    if (!stopped) parentPort!.postMessage(report);
  } catch {
    // a database blip: a fresh connection at the next beat
    void client?.end().catch(() => {});
    client = null;
  }
  if (!stopped) timer = setTimeout(() => void beat(), init.everyMs);
}

parentPort!.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  stopped = true;
  clearTimeout(timer);
  void (client?.end() ?? Promise.resolve()).catch(() => {}).finally(() => parentPort!.close());
});
timer = setTimeout(() => void beat(), init.everyMs);
