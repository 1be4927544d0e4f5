/**
 * Every change of a run's status, in one place. The API (create, cancel, resume, finish an external
 * run, delete), the worker (claim, report, hand back) and the sweeper call these functions; nothing
 * else writes `runs.status`. `RUN_TRANSITIONS` states which statuses each change starts from and may
 * end in, and each function's WHERE clause is built from it.
 *
 * Two guards exist. A status guard: the row must be in one of `from` (checked in the same statement,
 * so two racing changes cannot both apply). A lease guard: a worker's writes hold only while the run
 * still carries the lease epoch of its claim; claim, hand-back and sweep raise the epoch, so a
 * worker that lost its run can no longer write anything for it.
 */
import {
  EXTERNAL_FINAL_STATUSES,
  FINISHED_STATUSES,
  RESUMABLE_STATUSES,
  RUN_STATUSES,
  USER_CANCEL_REASON,
  isFinishedStatus,
  type FinishedStatus,
  type RunStatusName,
  type TrainerRunStatus,
} from '@starpo/contracts';
import type { Db } from './client.js';
import type { Prisma, Run, RunKind } from './generated/prisma/client.js';
import { publishRunNotice } from './queries/events.js';
import { LeaseLostError, updateRunFenced } from './queries/leases.js';
import { pgText } from './queries/pg-text.js';

export interface RunTransition {
  /** Who makes the change. */
  by: 'api' | 'worker' | 'sweeper';
  /** Kinds of run it applies to. */
  kinds: readonly RunKind[];
  /** Statuses it starts from (with the `lease` guard: the status a run holding a live lease is in). */
  from: readonly RunStatusName[];
  /** Statuses it may end in. */
  to: readonly RunStatusName[];
  guard: 'status' | 'lease';
}

const TRAINED = ['train', 'pretrain'] as const satisfies readonly RunKind[];
const ALL_KINDS = ['train', 'pretrain', 'external'] as const satisfies readonly RunKind[];

/** The allowed status changes of a run (creation is `create`, from no row at all). */
export const RUN_TRANSITIONS = {
  /** A worker's run is queued; an external run is running from its first request (its trainer is already going). */
  create: { by: 'api', kinds: ALL_KINDS, from: [], to: ['queued', 'running'], guard: 'status' },
  /** A worker takes a queued run; the lease epoch rises. */
  claim: { by: 'worker', kinds: TRAINED, from: ['queued'], to: ['running'], guard: 'status' },
  /** The trainer reports progress or its end (a requested cancel ends `cancelled`). */
  report: { by: 'worker', kinds: TRAINED, from: ['running'], to: ['running', ...FINISHED_STATUSES], guard: 'lease' },
  /** The worker shuts down: the run goes back to the queue, or ends `cancelled` when a cancel was requested. */
  release: { by: 'worker', kinds: TRAINED, from: ['running'], to: ['queued', 'cancelled'], guard: 'lease' },
  /** Its worker stopped heartbeating: back to the queue, or `cancelled` when a cancel was requested. */
  sweep: { by: 'sweeper', kinds: TRAINED, from: ['running'], to: ['queued', 'cancelled'], guard: 'status' },
  /**
   * Queued: cancelled at once. A running external run: cancelled at once. A running worker's run:
   * only marked (`cancel_requested_at`); the worker stops at its next phase boundary and reports `cancelled`.
   */
  cancel: { by: 'api', kinds: ALL_KINDS, from: ['queued', 'running'], to: ['cancelled', 'running'], guard: 'status' },
  /** A failed or cancelled worker's run goes back to the queue and continues from its last checkpoint. */
  resume: { by: 'api', kinds: TRAINED, from: RESUMABLE_STATUSES, to: ['queued'], guard: 'status' },
  /** An external run's trainer says how it ended; its word is final whatever the run showed before. */
  finishExternal: { by: 'api', kinds: ['external'], from: RUN_STATUSES, to: EXTERNAL_FINAL_STATUSES, guard: 'status' },
} as const satisfies Record<string, RunTransition>;

export type RunTransitionName = keyof typeof RUN_TRANSITIONS;

/** Whether `transition` may start from `status` (the status guard; lease-guarded ones also need the lease). */
export function canTransition(transition: RunTransitionName, status: RunStatusName): boolean {
  return (RUN_TRANSITIONS[transition].from as readonly RunStatusName[]).includes(status);
}

const sqlList = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(', ');
const prismaIn = <T extends string>(xs: readonly T[]) => ({ in: [...xs] });

// ---- worker -------------------------------------------------------------------------------------

/**
 * Take a run: $1 = worker id, $2 = whether the worker has a GPU (a GPU run only goes to one).
 * Each claim raises the run's lease epoch, so writes of any earlier owner are refused from now on.
 */
const CLAIM = `UPDATE runs SET status = 'running', worker_id = $1::uuid, heartbeat_at = now(), started_at = COALESCE(started_at, now()),
  lease_epoch = lease_epoch + 1, updated_at = now()`;
const CLAIMABLE = `status IN (${sqlList(RUN_TRANSITIONS.claim.from)}) AND kind IN (${sqlList(RUN_TRANSITIONS.claim.kinds)}) AND (NOT needs_gpu OR $2)`;

async function claimed(db: Db, sql: string, ...params: unknown[]): Promise<Run | null> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(`${sql} RETURNING id`, ...params);
  return rows[0] ? db.run.findUnique({ where: { id: rows[0].id } }) : null;
}

/**
 * Atomically claim the queued training run this worker may take that joined the queue first
 * (`queued_at`, which a requeue keeps), with FOR UPDATE SKIP LOCKED so any number of workers can
 * poll one database. `gpuRuns`: only runs that need a GPU (true) or only those that do not (false).
 */
export function claimNextRun(db: Db, workerId: string, hasGpu: boolean, gpuRuns?: boolean): Promise<Run | null> {
  return claimed(
    db,
    `${CLAIM} WHERE id = (SELECT id FROM runs WHERE ${CLAIMABLE} AND ($3::boolean IS NULL OR needs_gpu = $3)
       ORDER BY queued_at, id FOR UPDATE SKIP LOCKED LIMIT 1)`,
    workerId,
    hasGpu,
    gpuRuns ?? null,
  );
}

/** Claim one specific queued run (after a queue dispatch named it); null if it is no longer queued or needs a GPU we lack. */
export function claimRun(db: Db, runId: string, workerId: string, hasGpu: boolean): Promise<Run | null> {
  return claimed(db, `${CLAIM} WHERE id = $3::uuid AND ${CLAIMABLE}`, workerId, hasGpu, runId);
}

export interface RunReport {
  status: TrainerRunStatus;
  step: number;
  totalSteps: number;
  stopReason?: string;
  error?: string;
}

/** The trainer's status for its run, while `lease` holds (LeaseLostError otherwise); without a lease, only the row must exist. */
export async function reportRunStatus(db: Db, runId: string, lease: number | undefined, u: RunReport): Promise<void> {
  await updateRunFenced(db, runId, lease, {
    status: u.status,
    currentStep: u.step,
    totalSteps: u.totalSteps,
    heartbeatAt: new Date(),
    ...(u.stopReason !== undefined ? { stopReason: u.stopReason } : {}),
    ...(u.error !== undefined ? { error: pgText(u.error) } : {}),
    ...(isFinishedStatus(u.status) ? { finishedAt: new Date() } : {}),
  });
}

/**
 * Back to the queue, or `cancelled` when a cancel was requested meanwhile; the epoch rises.
 * Shared by a worker's hand-back and the sweep.
 */
const REQUEUE_OR_CANCEL = `
  status = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled'::"RunStatus" ELSE 'queued'::"RunStatus" END,
  resume_count = resume_count + CASE WHEN cancel_requested_at IS NOT NULL THEN 0 ELSE 1 END,
  worker_id = NULL, lease_epoch = lease_epoch + 1, updated_at = now()`;

/**
 * The owner hands its run back (shutdown): queued again for any worker, or `cancelled` when a cancel
 * was requested meanwhile. The epoch rises, so nothing more is accepted from this lease.
 */
export async function releaseRun(db: Db, runId: string, lease: number, step?: number): Promise<'queued' | 'cancelled' | FinishedStatus> {
  const rows = await db.$queryRawUnsafe<{ status: 'queued' | 'cancelled' }[]>(
    `UPDATE runs SET ${REQUEUE_OR_CANCEL},
       stop_reason = CASE WHEN cancel_requested_at IS NOT NULL THEN ${sqlList([USER_CANCEL_REASON])} ELSE NULL END,
       finished_at = CASE WHEN cancel_requested_at IS NOT NULL THEN now() ELSE NULL END,
       current_step = COALESCE($3::int, current_step)
     WHERE id = $1::uuid AND lease_epoch = $2 AND status IN (${sqlList(RUN_TRANSITIONS.release.from)}) RETURNING status::text AS status`,
    runId,
    lease,
    step ?? null,
  );
  if (rows[0]) return rows[0].status;
  // A forced shutdown can race the run's own end: a run this lease already finished stays finished.
  const run = await db.run.findUnique({ where: { id: runId }, select: { status: true, leaseEpoch: true } });
  if (run && run.leaseEpoch === lease && isFinishedStatus(run.status)) return run.status;
  throw new LeaseLostError(runId, lease);
}

// ---- sweeper ------------------------------------------------------------------------------------

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
  // the run's log says why, in the same statement: the interruption as it was
  const rows = await db.$queryRawUnsafe<{ id: string; status: string }[]>(
    `WITH swept AS (
       UPDATE runs SET ${REQUEUE_OR_CANCEL},
         stop_reason = CASE WHEN cancel_requested_at IS NOT NULL THEN ${sqlList([USER_CANCEL_REASON])} ELSE stop_reason END,
         finished_at = CASE WHEN cancel_requested_at IS NOT NULL THEN now() ELSE finished_at END
       WHERE status IN (${sqlList(RUN_TRANSITIONS.sweep.from)}) AND kind IN (${sqlList(RUN_TRANSITIONS.sweep.kinds)})
         AND heartbeat_at < now() - ($1::int * interval '1 millisecond')
       RETURNING id, status::text AS status, current_step
     ), logged AS (
       INSERT INTO run_logs (run_id, level, message)
       SELECT id, 'warn', CASE WHEN status = 'queued'
         THEN 'requeued at step ' || current_step || ': no heartbeat from its worker for ' || ($1::int / 1000) || ' s; the next worker resumes it from its latest checkpoint, or starts it over if it has none'
         ELSE 'cancelled at step ' || current_step || ': no heartbeat from its worker for ' || ($1::int / 1000) || ' s after a cancel was asked for' END
       FROM swept
     )
     SELECT id, status FROM swept`,
    staleAfterMs,
  );
  return {
    requeued: rows.filter((r) => r.status === 'queued').map((r) => r.id),
    cancelled: rows.filter((r) => r.status === 'cancelled').map((r) => r.id),
  };
}

/** Queued runs (first in the queue first), for re-announcing dispatches that were lost. */
export async function queuedRuns(db: Db, limit = 100): Promise<{ id: string; needsGpu: boolean }[]> {
  return db.run.findMany({
    where: { status: prismaIn(RUN_TRANSITIONS.claim.from), kind: prismaIn(RUN_TRANSITIONS.claim.kinds) },
    orderBy: [{ queuedAt: 'asc' }, { id: 'asc' }],
    take: limit,
    select: { id: true, needsGpu: true },
  });
}

// ---- API ----------------------------------------------------------------------------------------

/** The status a new run starts in. */
export function initialRunStatus(kind: RunKind): { status: 'queued' | 'running'; startedAt: Date | null; heartbeatAt: Date | null } {
  return kind === 'external'
    ? { status: 'running', startedAt: new Date(), heartbeatAt: new Date() }
    : { status: 'queued', startedAt: null, heartbeatAt: null };
}

/** The stop reason of a run cancelled by `by` (a user's name or email), as the run page shows it. */
export const cancelReason = (by: string): string => `cancelled by ${by}`;

/**
 * Cancel a run (see `RUN_TRANSITIONS.cancel`) for `by`, a user's name or email. Returns false when the
 * run was no longer queued or running by the time of the write (it finished meanwhile). A running
 * run keeps the reason beside its cancel request: its worker ends it with that reason.
 */
export async function cancelRun(db: Db, run: { id: string; kind: RunKind }, by = 'user'): Promise<boolean> {
  const now = new Date();
  const stopReason = cancelReason(by);
  const queued = await db.run.updateMany({
    where: { id: run.id, status: 'queued' },
    data: { status: 'cancelled', stopReason, finishedAt: now, cancelRequestedAt: now },
  });
  const data: Prisma.RunUpdateManyMutationInput =
    run.kind === 'external' ? { status: 'cancelled', stopReason, finishedAt: now } : { cancelRequestedAt: now, stopReason };
  const done = queued.count > 0 || (await db.run.updateMany({ where: { id: run.id, status: 'running' }, data })).count > 0;
  if (done) {
    const line = await db.runLog.create({ data: { runId: run.id, level: 'warn', message: `${stopReason}: cancel requested` } });
    await publishRunNotice(db, { run: run.id, type: 'log', id: String(line.id) }).catch(() => {}); // live logs: best effort
  }
  return done;
}

/** Put a failed or cancelled worker's run back in the queue, at its end; false when it was in another status. */
export async function resumeRun(db: Db, runId: string): Promise<boolean> {
  const res = await db.run.updateMany({
    where: { id: runId, status: prismaIn(RUN_TRANSITIONS.resume.from), kind: prismaIn(RUN_TRANSITIONS.resume.kinds) },
    data: {
      status: 'queued',
      queuedAt: new Date(),
      stopReason: null,
      error: null,
      finishedAt: null,
      cancelRequestedAt: null,
      workerId: null,
      resumeCount: { increment: 1 },
    },
  });
  return res.count > 0;
}

/** An external run's final status, as its trainer sent it. */
export async function finishExternalRun(
  db: Db,
  runId: string,
  status: (typeof RUN_TRANSITIONS.finishExternal.to)[number],
  stopReason: string | null,
): Promise<void> {
  await db.run.update({ where: { id: runId }, data: { status, stopReason, finishedAt: new Date(), heartbeatAt: new Date() } });
}

/**
 * Why the run may not be deleted now, or null. A worker's running run must be cancelled first; once
 * a cancel was requested (even one its worker never honours, a dead or frozen one) it may go, and
 * a worker still training it finds its lease gone and stops.
 */
export function deletionRefusal(run: Pick<Run, 'status' | 'kind' | 'cancelRequestedAt'>): string | null {
  return run.status === 'running' && run.kind !== 'external' && !run.cancelRequestedAt ? 'is running; cancel it first' : null;
}
