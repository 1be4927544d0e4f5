import {
  assertLease,
  insertTrajectories,
  pgText,
  releaseRun,
  reportRunStatus,
  publishRunNotice,
  retryWhileDown,
  storeCheckpoint,
  upsertMetricPoints,
  type Db,
  type MetricPointInput,
  type TrajectoryInput,
} from '@starpo/db';
import type { RunNotice, RunProgress, RunWarning } from '@starpo/contracts';
import { trajectoryRecord, type CheckpointPayload, type RunStatus, type Trajectory, type TrainSink } from '@starpo/trainer';

/** Stop reason of a run stopped because its worker is shutting down: the run goes back to the queue, not to `cancelled`. */
export const WORKER_SHUTDOWN = 'worker shutting down';

/** Past this many buffered points, `metrics()` waits for the database (backpressure). */
const MAX_BUFFERED_POINTS = 100_000;

/** A run notice without its run (the sink adds its own), one variant of RunNotice at a time. */
type SinkNotice = RunNotice extends infer N ? (N extends { run: string } ? Omit<N, 'run'> : never) : never;

/**
 * The worker's sink: everything the trainer reports goes to Postgres. Metric points are buffered
 * and written by one background flusher in multi-row batches (whatever arrived while the last
 * batch was in flight), so a slow or absent database never drops them; status, trajectories and
 * checkpoints flush first, so a checkpoint never gets ahead of its step's metrics.
 * With a `lease` (the epoch of the worker's claim), every write for the run is refused once the run
 * was requeued or taken over (LeaseLostError): an old owner can never mix its data into the new one's.
 */
export class DbSink implements TrainSink {
  private buffer: MetricPointInput[] = [];
  private flushing: Promise<void> | null = null;
  private flushError: Error | null = null;

  constructor(
    private readonly db: Db,
    private readonly runId: string,
    private readonly lease?: number,
  ) {}

  async status(u: { status: RunStatus; step: number; totalSteps: number; stopReason?: string; error?: string }): Promise<void> {
    await this.flush();
    const lease = this.lease;
    if (lease !== undefined && u.status === 'cancelled' && u.stopReason === WORKER_SHUTDOWN) {
      // stopped for a shutdown: back to the queue (or cancelled, if a cancel came meanwhile)
      await this.log(
        'warn',
        `requeued at step ${u.step} (worker shutting down): the next worker resumes it from its latest checkpoint, or starts it over if it has none`,
      );
      await this.retry(() => releaseRun(this.db, this.runId, lease, u.step));
      await this.notify({ type: 'status' });
      return;
    }
    await this.retry(() => reportRunStatus(this.db, this.runId, lease, u));
    await this.notify({ type: 'status' });
  }

  async metrics(step: number, values: Record<string, number>): Promise<void> {
    if (this.flushError) throw this.flushError;
    const time = new Date();
    for (const [key, value] of Object.entries(values)) this.buffer.push({ key, step, value, time });
    this.flushing ??= this.drain();
    if (this.buffer.length > MAX_BUFFERED_POINTS) await this.flush();
  }

  /** Wait until every buffered point is stored (throws if the database stayed away too long, or the lease is gone). */
  async flush(): Promise<void> {
    // a failed batch stays buffered for the error's sake: looping on it would spin without end
    while (!this.flushError && (this.flushing || this.buffer.length)) await (this.flushing ??= this.drain());
    if (this.flushError) throw this.flushError;
  }

  private async drain(): Promise<void> {
    try {
      while (this.buffer.length && !this.flushError) {
        const batch = this.buffer;
        this.buffer = [];
        try {
          await this.retry(() => upsertMetricPoints(this.db, this.runId, batch, { lease: this.lease }));
        } catch (e) {
          this.buffer = batch.concat(this.buffer); // keep them for the next try
          this.flushError = e as Error;
          break;
        }
        const steps = batch.map((p) => p.step);
        const from = Math.min(...steps);
        const to = Math.max(...steps);
        await this.notify({ type: 'metrics', step: to, ...(from < to ? { from } : {}) });
      }
    } finally {
      this.flushing = null;
    }
  }

  async trajectories(step: number, trajs: Trajectory[], kept: (t: Trajectory) => boolean | null): Promise<void> {
    await this.flush();
    const rows = trajs.map((t) => trajectoryRecord(step, t, kept(t)) as unknown as TrajectoryInput);
    await this.retry(() => insertTrajectories(this.db, this.runId, rows, { lease: this.lease }));
    await this.notify({ type: 'trajectories', step });
  }

  async checkpoint(p: CheckpointPayload): Promise<void> {
    await this.flush();
    // every file in one transaction: a checkpoint is complete (it has its state.json) or absent
    const files = [...p.files].map(([kind, bytes]) => ({ kind, bytes, format: kind.endsWith('.safetensors') ? 'safetensors' : 'json' }));
    await this.retry(() => storeCheckpoint(this.db, this.runId, p.step, files, { lease: this.lease }));
  }

  /** Log lines are fenced like every other write: a worker that lost the lease writes none (LeaseLostError). */
  async log(level: 'info' | 'warn' | 'error', message: string, code?: string): Promise<void> {
    const data = { runId: this.runId, level, message: pgText(message), ...(code ? { code } : {}) };
    const lease = this.lease;
    const row = await this.retry(() =>
      lease === undefined
        ? this.db.runLog.create({ data })
        : this.db.$transaction(async (tx) => {
            await assertLease(tx, this.runId, lease);
            return tx.runLog.create({ data });
          }),
    );
    await this.notify({ type: 'log', id: String(row.id) });
  }

  /**
   * A run's failure: its message goes to the run's log, which users read; the stack trace names
   * server paths, so it goes to this worker's stderr only. Returns the message.
   */
  async failure(e: unknown): Promise<string> {
    const message = e instanceof Error ? e.message : String(e);
    console.error(`run ${this.runId} failed: ${e instanceof Error ? (e.stack ?? message) : message}`);
    await this.log('error', message).catch(() => {});
    return message;
  }

  /** A warning is a `warn` log line with its code, so the run's warnings can be listed. */
  async warning(w: RunWarning): Promise<void> {
    await this.log('warn', `[${w.code}] step ${w.step}: ${w.message}`, w.code);
  }

  /** Live progress is best effort, never retried: the next update replaces it. Clients reload the run on the status notice. */
  async progress(p: RunProgress): Promise<void> {
    try {
      // fenced like every other run write: an old owner must not overwrite the new one's progress
      const where = { id: this.runId, ...(this.lease !== undefined ? { leaseEpoch: this.lease } : {}) };
      if ((await this.db.run.updateMany({ where, data: { progress: p as object } })).count === 0) return;
      await this.notify({ type: 'status' });
    } catch {
      // the database is away for a moment: the trainer goes on
    }
  }

  /** The trainer waits while the database is away, so no buffered step is lost. */
  private retry<T>(fn: () => Promise<T>): Promise<T> {
    return retryWhileDown(fn, {
      onRetry: (e, ms) => console.error(`run ${this.runId}: database unreachable (${e.message}); retrying in ${ms} ms`),
    });
  }

  /** Live events are best effort: the data is stored already, and clients catch up on reconnect. */
  private async notify(n: SinkNotice): Promise<void> {
    await publishRunNotice(this.db, { ...n, run: this.runId } as RunNotice).catch(() => {});
  }
}
