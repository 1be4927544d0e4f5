import type { Db } from './client.js';
import { queuedRuns, sweepStaleRuns, type SweepResult } from './run-state.js';

export interface SweeperOptions {
  /** A run whose heartbeat is older than this is requeued (or cancelled, when a cancel was requested). */
  staleMs: number;
  intervalMs: number;
  /** Announce a queued run again (a lost dispatch); duplicates are dropped by the queue. */
  dispatch?: (runId: string, needsGpu: boolean) => Promise<unknown>;
  onSwept?: (r: SweepResult) => void;
  onError?: (e: Error) => void;
}

/**
 * Periodic sweep, run by every live process (API and workers, busy or not). After the database was
 * unreachable, every heartbeat is old; a sweeper therefore waits until it has itself been connected
 * for `staleMs` before it judges any run stale, giving the owners time to heartbeat again.
 */
export function startSweeper(db: Db, o: SweeperOptions): { stop(): void; sweepNow(): Promise<SweepResult | null> } {
  let connectedSince: number | null = null;
  let running: Promise<SweepResult | null> | null = null;
  const sweep = async (): Promise<SweepResult | null> => {
    try {
      const t0 = Date.now();
      await db.$queryRawUnsafe('SELECT 1');
      // a probe that waited (a frozen server, a reconnect) counts as just connected
      if (connectedSince === null || Date.now() - t0 > Math.min(1000, o.staleMs / 4)) connectedSince = Date.now();
      if (Date.now() - connectedSince < o.staleMs) return null;
      const r = await sweepStaleRuns(db, o.staleMs);
      if (r.requeued.length || r.cancelled.length) o.onSwept?.(r);
      if (o.dispatch) for (const q of await queuedRuns(db)) await o.dispatch(q.id, q.needsGpu);
      return r;
    } catch (e) {
      connectedSince = null;
      o.onError?.(e as Error);
      return null;
    }
  };
  const tick = () => {
    running ??= sweep().finally(() => (running = null));
  };
  const timer = setInterval(tick, o.intervalMs);
  timer.unref();
  tick();
  return { stop: () => clearInterval(timer), sweepNow: () => (running ??= sweep().finally(() => (running = null))) };
}
