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
