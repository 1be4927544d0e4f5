import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface HeartbeatInit {
  databaseUrl: string;
  runId: string;
  lease: number;
  everyMs: number;
}

/** One beat's news: the lease is gone, or it holds and a cancel was (or was not) requested, with the stop reason it left. */
export interface HeartbeatReport {
  lost: boolean;
  cancelRequested: boolean;
  stopReason: string | null;
}

/** The thread script: built JavaScript beside this module, or the build output when running from the TypeScript sources (tests). */
function threadScript(): string {
  const here = fileURLToPath(new URL('./heartbeat-thread.js', import.meta.url));
  if (existsSync(here)) return here;
  const built = here.replace(/[\\/]src[\\/]heartbeat-thread\.js$/, '/dist/heartbeat-thread.js');
  if (!existsSync(built)) throw new Error(`heartbeat thread script not found (${built}); build @starpo/db first`);
  return built;
}

/**
 * Heartbeats a run every `everyMs` from a worker thread (heartbeat-thread.ts): each beat's report
 * reaches `onReport` when this thread's event loop is next free. `stop()` ends it, its connection too.
 */
export function startRunHeartbeat(init: HeartbeatInit, onReport: (r: HeartbeatReport) => void): { stop(): Promise<void> } {
  const thread = new Worker(threadScript(), { workerData: init });
  thread.on('message', onReport);
  thread.on('error', (e) => console.error(`heartbeat thread of run ${init.runId}: ${e.message}`));
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  return {
    stop: async () => {
      thread.off('message', onReport);
      thread.postMessage('stop');
      // its connection ends within a second or two; past that, end the thread itself
      const late = setTimeout(() => void thread.terminate(), 3_000);
      await exited;
      clearTimeout(late);
    },
  };
}
