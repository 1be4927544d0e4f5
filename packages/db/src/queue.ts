import PgBoss from 'pg-boss';
import type { Db } from './client.js';
import type { Run } from './generated/prisma/client.js';
import { retryAttempts } from './retry.js';
import { claimNextRun } from './run-state.js';

/** Queues of run dispatches: GPU runs go to their own queue so only GPU workers take them. */
export const RUN_QUEUES = { cpu: 'runs', gpu: 'runs-gpu' } as const;

export interface RunJob {
  jobId: string;
  queue: string;
  runId: string;
}

/**
 * Run dispatch through pg-boss (a maintained Postgres job queue). A job only says "run X is
 * queued"; the run row stays the source of truth, and a worker claims the row itself
 * (`claimRun`), so a stale or duplicate job is harmless. The `short` policy keeps at most one
 * waiting job per run.
 */
export class RunQueue {
  private readonly boss: PgBoss;
  private started = false;

  constructor(databaseUrl: string, opts: { maintenance?: boolean } = {}) {
    this.boss = new PgBoss({
      connectionString: databaseUrl,
      schema: 'pgboss',
      max: 2,
      supervise: opts.maintenance ?? false,
      schedule: false,
      migrate: true,
      // passed on to its pg pool: a frozen database fails a dispatch or fetch instead of hanging it
      connectionTimeoutMillis: 3000,
      query_timeout: 15_000,
    } as ConstructorParameters<typeof PgBoss>[0]);
    this.boss.on('error', () => {}); // connection blips: callers see failures on their own calls and retry
  }

  async start(): Promise<this> {
    if (this.started) return this;
    // The API and a worker starting together on a fresh database both create pg-boss's schema;
    // the loser of that race fails once and succeeds on a retry.
    await retryAttempts(() => this.boss.start(), {
      attempts: 5,
      delayMs: (attempt) => 250 * attempt,
      beforeRetry: () => this.boss.stop({ graceful: false, wait: true }).catch(() => {}),
    });
    for (const name of Object.values(RUN_QUEUES)) await this.createQueue(name);
    this.started = true;
    return this;
  }

  /**
   * Two processes creating the same queue at once can deadlock inside pg-boss's create_queue (each
   * insert waits on the other's foreign key on the queue table); Postgres aborts one, which retries.
   */
  private async createQueue(name: string): Promise<void> {
    await retryAttempts(
      async () => {
        if (!(await this.boss.getQueue(name))) await this.boss.createQueue(name, { name, policy: 'short' });
      },
      { attempts: 5, delayMs: (attempt) => 100 * attempt + Math.random() * 200 },
    );
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.boss.stop({ graceful: false, wait: true });
  }

  /** Announce a queued run; returns false when a dispatch for it is already waiting. */
  async dispatch(runId: string, needsGpu: boolean): Promise<boolean> {
    const id = await this.boss.send(needsGpu ? RUN_QUEUES.gpu : RUN_QUEUES.cpu, { runId }, { singletonKey: runId, retryLimit: 0 });
    return id !== null;
  }

  /** The next dispatch this worker may take (a GPU worker looks at the GPU queue first). */
  async fetch(hasGpu: boolean): Promise<RunJob | null> {
    for (const queue of hasGpu ? [RUN_QUEUES.gpu, RUN_QUEUES.cpu] : [RUN_QUEUES.cpu]) {
      const [job] = await this.boss.fetch<{ runId: string }>(queue, { batchSize: 1 });
      if (job) return { jobId: job.id, queue, runId: job.data.runId };
    }
    return null;
  }

  async complete(job: RunJob): Promise<void> {
    await this.boss.complete(job.queue, job.jobId);
  }
}

/**
 * A worker's next run, or null when no dispatch is waiting. A dispatch only wakes the worker: it
 * claims the run of that dispatch's queue that joined the queue first, so a run requeued by a
 * shutdown, whose new dispatch comes after those of runs queued meanwhile, keeps its place.
 */
export async function takeNextRun(db: Db, queue: RunQueue, workerId: string, hasGpu: boolean): Promise<Run | null> {
  for (let job = await queue.fetch(hasGpu); job; job = await queue.fetch(hasGpu)) {
    const gpu = job.queue === RUN_QUEUES.gpu;
    const run = await claimNextRun(db, workerId, hasGpu, gpu);
    await queue.complete(job);
    if (!run) continue; // nothing of that queue is waiting: a stale dispatch
    // the dispatch's own run, if it still waits, gets a new announcement: each queued run keeps one
    if (run.id !== job.runId && (await db.run.count({ where: { id: job.runId, status: 'queued' } }))) await queue.dispatch(job.runId, gpu);
    return run;
  }
  return null;
}
