import type pg from 'pg';

/** How long one probe's answer stands for every failure that asks (a burst of timeouts costs one probe). */
const PROBE_FRESH_MS = 1_000;
/** A database that does not answer `SELECT 1` within this is away: a frozen one still gets its 503 within seconds. */
const PROBE_WAIT_MS = 250;

/**
 * Whether the database answers right now, asked through the probe's own pool (the one /health uses).
 * A query that timed out under load and a database that is away fail with the same driver errors; a
 * `SELECT 1` on a connection of its own tells them apart, so a busy server answers `server_busy`, not
 * an outage.
 */
export class DatabaseReachability {
  private last: { at: number; up: Promise<boolean> } | null = null;

  constructor(private readonly probe: pg.Pool) {}

  reachable(): Promise<boolean> {
    const now = Date.now();
    if (!this.last || now - this.last.at > PROBE_FRESH_MS) {
      this.last = {
        at: now,
        up: Promise.race([
          this.probe.query('SELECT 1').then(
            () => true,
            () => false,
          ),
          new Promise<boolean>((resolve) => setTimeout(resolve, PROBE_WAIT_MS, false).unref()),
        ]),
      };
    }
    return this.last.up;
  }
}
