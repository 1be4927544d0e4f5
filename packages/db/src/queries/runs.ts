import type { Db } from '../client.js';
import type { Run } from '../generated/prisma/client.js';

/**
 * Take a run: $1 = worker id, $2 = whether the worker has a GPU (a GPU run only goes to one).
 * Each claim raises the run's lease epoch, so writes of any earlier owner are refused from now on.
 */
const CLAIM = `UPDATE runs SET status = 'running', worker_id = $1::uuid, heartbeat_at = now(), started_at = COALESCE(started_at, now()),
  lease_epoch = lease_epoch + 1, updated_at = now()`;
const CLAIMABLE = `status = 'queued' AND kind IN ('train', 'pretrain') AND (NOT needs_gpu OR $2)`;

async function claimed(db: Db, sql: string, ...params: unknown[]): Promise<Run | null> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(`${sql} RETURNING id`, ...params);
  return rows[0] ? db.run.findUnique({ where: { id: rows[0].id } }) : null;
}

/**
 * Atomically claim the oldest queued training run this worker may take, with FOR UPDATE SKIP
 * LOCKED so any number of workers can poll one database (polling without the queue).
 */
export function claimNextRun(db: Db, workerId: string, hasGpu: boolean): Promise<Run | null> {
  return claimed(
    db,
    `${CLAIM} WHERE id = (SELECT id FROM runs WHERE ${CLAIMABLE} ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)`,
    workerId,
    hasGpu,
  );
}

/** Claim one specific queued run (after a queue dispatch named it); null if it is no longer queued or needs a GPU we lack. */
export function claimRun(db: Db, runId: string, workerId: string, hasGpu: boolean): Promise<Run | null> {
  return claimed(db, `${CLAIM} WHERE id = $3::uuid AND ${CLAIMABLE}`, workerId, hasGpu, runId);
}

export interface SweepResult {
  /** Runs whose worker stopped heartbeating, back in the queue (they resume from their last checkpoint). */
  requeued: string[];
  /** Runs whose worker stopped heartbeating after a cancel was asked for: cancelled, never requeued. */
  cancelled: string[];
}

/**
 * Runs whose worker stopped heartbeating for `staleAfterMs` go back to the queue, or end `cancelled`
 * when a cancel was requested. The lease epoch rises, so the old owner can no longer write.
 */
export async function sweepStaleRuns(db: Db, staleAfterMs: number): Promise<SweepResult> {
  const rows = await db.$queryRawUnsafe<{ id: string; status: string }[]>(
    `UPDATE runs SET
       status = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled'::"RunStatus" ELSE 'queued'::"RunStatus" END,
       stop_reason = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled by user' ELSE stop_reason END,
       finished_at = CASE WHEN cancel_requested_at IS NOT NULL THEN now() ELSE finished_at END,
       resume_count = resume_count + CASE WHEN cancel_requested_at IS NOT NULL THEN 0 ELSE 1 END,
       worker_id = NULL, lease_epoch = lease_epoch + 1, updated_at = now()
     WHERE status = 'running' AND kind IN ('train', 'pretrain') AND heartbeat_at < now() - ($1::int * interval '1 millisecond')
     RETURNING id, status::text`,
    staleAfterMs,
  );
  return {
    requeued: rows.filter((r) => r.status === 'queued').map((r) => r.id),
    cancelled: rows.filter((r) => r.status === 'cancelled').map((r) => r.id),
  };
}

/** Queued runs (oldest first), for re-announcing dispatches that were lost. */
export async function queuedRuns(db: Db, limit = 100): Promise<{ id: string; needsGpu: boolean }[]> {
  return db.run.findMany({
    where: { status: 'queued', kind: { in: ['train', 'pretrain'] } },
    orderBy: { createdAt: 'asc' },
    take: limit,
    select: { id: true, needsGpu: true },
  });
}
