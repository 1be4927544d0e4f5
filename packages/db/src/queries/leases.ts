import type { Db } from '../client.js';
import { Prisma } from '../generated/prisma/client.js';
import { HEARTBEAT_SQL, type HeartbeatRow } from './heartbeat-sql.js';

/** A worker wrote for a run whose lease it no longer holds (the run was requeued, taken over, or deleted). */
export class LeaseLostError extends Error {
  constructor(
    readonly runId: string,
    readonly lease: number,
  ) {
    super(`lease ${lease} on run ${runId} is gone: the run was requeued, taken over by another worker, or deleted`);
    this.name = 'LeaseLostError';
  }
}

export const isLeaseLost = (e: unknown): e is LeaseLostError => e instanceof LeaseLostError;

/**
 * Inside a transaction: lock the run row in share mode and check it still carries `lease`. A claim
 * or sweep (which update the row) waits until the transaction commits, and one that committed
 * first makes this throw, so a write guarded by it can never land after the lease moved on.
 */
export async function assertLease(tx: Prisma.TransactionClient, runId: string, lease: number): Promise<void> {
  const rows = await tx.$queryRawUnsafe<{ lease_epoch: number }[]>('SELECT lease_epoch FROM runs WHERE id = $1::uuid FOR SHARE', runId);
  if (rows[0]?.lease_epoch !== lease) throw new LeaseLostError(runId, lease);
}

/**
 * The owner's heartbeat on its run: refreshes `heartbeat_at` while `lease` holds. Returns null
 * when the lease is gone, else whether a cancel was requested (and the stop reason it left, naming who).
 */
export async function heartbeatRun(
  db: Db,
  runId: string,
  lease: number,
): Promise<{ cancelRequested: boolean; stopReason: string | null } | null> {
  const rows = await db.$queryRawUnsafe<HeartbeatRow[]>(HEARTBEAT_SQL, runId, lease);
  return rows[0] ? { cancelRequested: rows[0].cancel, stopReason: rows[0].stop_reason } : null;
}

/** Update the run row only while `lease` holds (one statement, so atomic); throws LeaseLostError otherwise. Without a lease, only the row must exist. */
export async function updateRunFenced(
  db: Db,
  runId: string,
  lease: number | undefined,
  data: Prisma.RunUpdateManyMutationInput,
): Promise<void> {
  const res = await db.run.updateMany({ where: { id: runId, ...(lease !== undefined ? { leaseEpoch: lease } : {}) }, data });
  if (res.count > 0) return;
  if (lease !== undefined) throw new LeaseLostError(runId, lease);
  throw new Error(`run ${runId} not found`);
}
