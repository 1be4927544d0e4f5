import {
  insertTrajectories,
  pgText,
  publishRunNotice,
  retryWhileDown,
  storeCheckpointFile,
  upsertMetrics,
  type Db,
  type TrajectoryInput,
} from '@starpo/db';
import { trajectoryRecord, type CheckpointPayload, type RunStatus, type Trajectory, type TrainSink } from '@starpo/trainer';

const FINISHED: RunStatus[] = ['succeeded', 'failed', 'cancelled', 'stopped_early'];

/** The worker's sink: everything the trainer reports goes to Postgres. */
export class DbSink implements TrainSink {
  constructor(
    private readonly db: Db,
    private readonly runId: string,
  ) {}

  async status(u: { status: RunStatus; step: number; totalSteps: number; stopReason?: string; error?: string }): Promise<void> {
    const done = FINISHED.includes(u.status);
    await this.retry(() =>
      this.db.run.update({
        where: { id: this.runId },
        data: {
          status: u.status,
          currentStep: u.step,
          totalSteps: u.totalSteps,
          heartbeatAt: new Date(),
          ...(u.stopReason !== undefined ? { stopReason: u.stopReason } : {}),
          ...(u.error !== undefined ? { error: pgText(u.error) } : {}),
          ...(done ? { finishedAt: new Date() } : {}),
        },
      }),
    );
    await this.notify({ type: 'status' });
  }

  async metrics(step: number, values: Record<string, number>): Promise<void> {
    await this.retry(() => upsertMetrics(this.db, this.runId, step, values));
    await this.notify({ type: 'metrics', step });
  }

  async trajectories(step: number, trajs: Trajectory[], kept: (t: Trajectory) => boolean | null): Promise<void> {
    const rows = trajs.map((t) => trajectoryRecord(step, t, kept(t)) as unknown as TrajectoryInput);
    await this.retry(() => insertTrajectories(this.db, this.runId, rows));
    await this.notify({ type: 'trajectories', step });
  }

  async checkpoint(p: CheckpointPayload): Promise<void> {
    // state.json last: a checkpoint counts as complete once it is there
    const files = [...p.files.entries()].sort(([a], [b]) => (a === 'state.json' ? 1 : b === 'state.json' ? -1 : a < b ? -1 : 1));
    for (const [name, bytes] of files)
      await this.retry(() =>
        storeCheckpointFile(this.db, this.runId, p.step, name, bytes, name.endsWith('.safetensors') ? 'safetensors' : 'json'),
      );
  }

  async log(level: 'info' | 'warn' | 'error', message: string): Promise<void> {
    const row = await this.retry(() => this.db.runLog.create({ data: { runId: this.runId, level, message: pgText(message) } }));
    await this.notify({ type: 'log', id: String(row.id) });
  }

  /** The trainer waits while the database is away, so no buffered step is lost. */
  private retry<T>(fn: () => Promise<T>): Promise<T> {
    return retryWhileDown(fn, {
      onRetry: (e, ms) => console.error(`run ${this.runId}: database unreachable (${e.message}); retrying in ${ms} ms`),
    });
  }

  /** Live events are best effort: the data is stored already, and clients catch up on reconnect. */
  private async notify(n: { type: string; step?: number; id?: string }): Promise<void> {
    await publishRunNotice(this.db, { run: this.runId, ...n }).catch(() => {});
  }
}
