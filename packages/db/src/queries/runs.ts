import type { Db } from '../client.js';
import type { Run } from '../generated/prisma/client.js';

/**
 * Atomically claim the oldest queued training run this worker may take (a GPU run only for a
 * GPU worker), with FOR UPDATE SKIP LOCKED so any number of workers can poll one database.
 */
export async function claimNextRun(db: Db, workerId: string, hasGpu: boolean): Promise<Run | null> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE runs SET status = 'running', worker_id = $1::uuid, heartbeat_at = now(), started_at = COALESCE(started_at, now()), updated_at = now()
     WHERE id = (SELECT id FROM runs WHERE status = 'queued' AND kind IN ('train', 'pretrain') AND (NOT needs_gpu OR $2)
                 ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
     RETURNING id`,
    workerId,
    hasGpu,
  );
  return rows[0] ? db.run.findUnique({ where: { id: rows[0].id } }) : null;
}

/** Runs whose worker stopped heartbeating go back to the queue (they resume from their last checkpoint). */
export async function requeueStaleRuns(db: Db, staleAfterMs: number): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE runs SET status = 'queued', worker_id = NULL, resume_count = resume_count + 1, updated_at = now()
     WHERE status = 'running' AND kind IN ('train', 'pretrain') AND heartbeat_at < now() - ($1::int * interval '1 millisecond')
     RETURNING id`,
    staleAfterMs,
  );
  return rows.map((r) => r.id);
}

/** Claim one specific queued run (after a queue dispatch named it); null if it is no longer queued or needs a GPU we lack. */
export async function claimRun(db: Db, runId: string, workerId: string, hasGpu: boolean): Promise<Run | null> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE runs SET status = 'running', worker_id = $1::uuid, heartbeat_at = now(), started_at = COALESCE(started_at, now()), updated_at = now()
     WHERE id = $2::uuid AND status = 'queued' AND kind IN ('train', 'pretrain') AND (NOT needs_gpu OR $3)
     RETURNING id`,
    workerId,
    runId,
    hasGpu,
  );
  return rows[0] ? db.run.findUnique({ where: { id: rows[0].id } }) : null;
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
