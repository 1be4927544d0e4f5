import type { RunNotice, RunStatusName } from '@starpo/contracts';
import type { Db } from '../client.js';
import { EVENTS_CHANNEL } from './events.js';
import type { Prisma, Run } from '../generated/prisma/client.js';

/** Reads and metadata writes of runs for the API; status changes live in run-state.ts. */

/** A run of `teamId`, else null (another team's run is indistinguishable from none). */
export function findTeamRun(db: Db, teamId: string, id: string): Promise<Run | null> {
  return db.run.findFirst({ where: { id, teamId } });
}

/** Insert a run row (its status from `initialRunStatus`). */
export function insertRun(db: Db, data: Prisma.RunUncheckedCreateInput): Promise<Run> {
  return db.run.create({ data });
}

/** Name, tags, notes. */
export function updateRunMetadata(db: Db, id: string, data: { name?: string; tags?: string[]; notes?: string }): Promise<Run> {
  return db.run.update({ where: { id }, data });
}

/** Delete a run and, by cascade, all its data. */
export async function deleteRun(db: Db, id: string): Promise<void> {
  await db.run.delete({ where: { id } });
}

export interface RunListFilter {
  status?: RunStatusName[];
  environment?: string;
  algorithm?: string;
  owner?: string;
  tag?: string;
  /** Substring of the name or notes (any case), or an exact tag. */
  q?: string;
  sort: { field: 'createdAt' | 'name'; dir: 'asc' | 'desc' };
  /** Rows after this one in the sort order (keyset pagination). */
  after?: { v: string | Date; id: string } | null;
  limit: number;
}

/** `s` as a literal inside a LIKE/ILIKE pattern (Prisma's `contains` does not escape `%`, `_` or the escape character). */
export const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, '\\$&');

/** The team's runs that pass the list's filters (status, environment, algorithm, owner, tag, search). */
export function teamRunsWhere(teamId: string, f: Omit<RunListFilter, 'sort' | 'after' | 'limit'>): Prisma.RunWhereInput {
  return {
    teamId,
    ...(f.status?.length ? { status: { in: f.status } } : {}),
    ...(f.environment ? { environment: f.environment } : {}),
    ...(f.algorithm ? { algorithm: f.algorithm } : {}),
    ...(f.owner ? { ownerId: f.owner } : {}),
    ...(f.tag ? { tags: { has: f.tag } } : {}),
    ...(f.q
      ? {
          OR: [
            { name: { contains: likeLiteral(f.q), mode: 'insensitive' } },
            { notes: { contains: likeLiteral(f.q), mode: 'insensitive' } },
            { tags: { has: f.q } },
          ],
        }
      : {}),
  };
}

/** A page of the team's runs, plus one more row when another page follows. */
export function listTeamRuns(db: Db, teamId: string, f: RunListFilter): Promise<Run[]> {
  const { field, dir } = f.sort;
  const where = teamRunsWhere(teamId, f);
  const op = dir === 'desc' ? 'lt' : 'gt';
  const after: Prisma.RunWhereInput | undefined = f.after
    ? { OR: [{ [field]: { [op]: f.after.v } }, { [field]: f.after.v, id: { [op]: f.after.id } }] }
    : undefined;
  return db.run.findMany({
    where: after ? { AND: [where, after] } : where,
    orderBy: [{ [field]: dir }, { id: dir }],
    take: f.limit + 1,
  });
}

/** Summary rows (latest and best value) of `keys` for the runs. */
export function runSummaryMetrics(db: Db, runIds: string[], keys: string[]) {
  return db.metricSummary.findMany({ where: { runId: { in: runIds }, key: { in: keys } } });
}

/** The first and the last point of `key` of each run (its first and last validation, for `val/success`), by run id. */
export async function firstAndLastMetricPoints(
  db: Db,
  runIds: string[],
  key: string,
): Promise<Map<string, { first: { step: number; value: number }; last: { step: number; value: number } }>> {
  // one pass over the runs' blocks of `key`: the first block's first point and the last block's last one
  const rows = runIds.length
    ? await db.$queryRawUnsafe<{ run_id: string; first_step: number; first_value: number; last_step: number; last_value: number }[]>(
        `SELECT run_id::text,
                (array_agg(first_step ORDER BY bucket))[1] AS first_step, (array_agg(first_value ORDER BY bucket))[1] AS first_value,
                (array_agg(last_step ORDER BY bucket DESC))[1] AS last_step, (array_agg(last_value ORDER BY bucket DESC))[1] AS last_value
           FROM metric_blocks WHERE run_id = ANY($1::uuid[]) AND key = $2 GROUP BY run_id`,
        runIds,
        key,
      )
    : [];
  return new Map(
    rows.map((r) => [r.run_id, { first: { step: r.first_step, value: r.first_value }, last: { step: r.last_step, value: r.last_value } }]),
  );
}

/** The warning codes each run raised (warnings are log lines with a code). */
export async function runWarningCodes(db: Db, runIds: string[]): Promise<Map<string, string[]>> {
  const rows = runIds.length
    ? await db.runLog.groupBy({
        by: ['runId', 'code'],
        where: { runId: { in: runIds }, code: { not: null } },
        orderBy: { runId: 'asc' },
      })
    : [];
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.runId, [...(out.get(r.runId) ?? []), r.code!]);
  return out;
}

/** A queued run's place in the queue: the queued runs the workers will claim before it, plus one. */
export async function queuePosition(db: Db, run: Pick<Run, 'id' | 'status' | 'queuedAt'>): Promise<number | null> {
  if (run.status !== 'queued') return null;
  const ahead = await db.run.count({
    where: {
      status: 'queued',
      kind: { not: 'external' },
      OR: [{ queuedAt: { lt: run.queuedAt } }, { queuedAt: run.queuedAt, id: { lt: run.id } }],
    },
  });
  return ahead + 1;
}

/** Log lines of a run after id `after` (for tailing), at most 1,000; `warningsOnly`: the lines with a code. */
export function runLogLines(db: Db, runId: string, after: bigint, warningsOnly: boolean) {
  return db.runLog.findMany({
    where: { runId, id: { gt: after }, ...(warningsOnly ? { code: { not: null } } : {}) },
    orderBy: { id: 'asc' },
    take: 1000,
  });
}

/** Of `ids`, the runs that belong to `teamId`. */
export async function teamRunIds(db: Db, teamId: string, ids: string[]): Promise<string[]> {
  const rows = await db.run.findMany({ where: { id: { in: ids }, teamId }, select: { id: true } });
  return rows.map((r) => r.id);
}

/** What an ingestion sets on its external run (`step`: the SQL of the highest step it wrote): alive now, at least at that step. */
export const externalTouch = (step: string) =>
  `heartbeat_at = now(), updated_at = now(), current_step = GREATEST(current_step, ${step}::int)`;

/**
 * An external run's ingestion counts as its heartbeat and advances its step (never backwards); the
 * live notices of what it stored go out in the same round trip (publishRunNotice's channel).
 */
export async function touchExternalRun(db: Db, id: string, step: number, notices: RunNotice[] = []): Promise<void> {
  await db.$executeRawUnsafe(
    `WITH touched AS (UPDATE runs SET ${externalTouch('$2')} WHERE id = $1::uuid RETURNING 1)
     SELECT pg_notify($3, n) FROM unnest($4::text[]) AS n`, // the UPDATE runs whether or not a notice goes out
    id,
    step,
    EVENTS_CHANNEL,
    notices.map((n) => JSON.stringify(n)),
  );
}

/** How long POST /api/runs remembers an Idempotency-Key: a retry within it gets the first run back. */
export const IDEMPOTENCY_TTL_HOURS = 24;

class KeyTaken extends Error {}

/** An Idempotency-Key as its caller sent it: `callerId` is the API token's id, or the user's for a session. */
export interface IdempotencyKey {
  teamId: string;
  callerId: string;
  key: string;
  /** sha256 of the request body: the same key with another body is refused, not replayed. */
  bodyHash: string;
}

/**
 * Insert a run under its caller's idempotency key, or, when the key created a run within the last
 * IDEMPOTENCY_TTL_HOURS, return that one (`created: false`, and `sameBody` false when that request's
 * body differed). The key is claimed in the run's transaction, on the table's primary key, so two
 * concurrent requests with one key create one run.
 */
export async function insertRunOnce(
  db: Db,
  k: IdempotencyKey,
  data: Prisma.RunUncheckedCreateInput,
): Promise<{ run: Run; created: boolean; sameBody: boolean }> {
  try {
    const run = await db.$transaction(async (tx) => {
      const run = await tx.run.create({ data });
      const claimed = await tx.$queryRawUnsafe<{ run_id: string }[]>(
        `INSERT INTO run_idempotency_keys (team_id, caller_id, key, body_hash, run_id) VALUES ($1::uuid, $2::uuid, $3, $4, $5::uuid)
         ON CONFLICT (team_id, caller_id, key) DO UPDATE SET run_id = excluded.run_id, body_hash = excluded.body_hash, created_at = now()
           WHERE run_idempotency_keys.created_at < now() - make_interval(hours => $6)
         RETURNING run_id`,
        k.teamId,
        k.callerId,
        k.key,
        k.bodyHash,
        run.id,
        IDEMPOTENCY_TTL_HOURS,
      );
      if (claimed.length === 0) throw new KeyTaken(); // rolls the new run back
      return run;
    });
    return { run, created: true, sameBody: true };
  } catch (e) {
    if (!(e instanceof KeyTaken)) throw e;
    const first = await db.runIdempotencyKey.findUniqueOrThrow({
      where: { teamId_callerId_key: { teamId: k.teamId, callerId: k.callerId, key: k.key } },
      include: { run: true },
    });
    // a key stored before bodies were hashed replays as it did then
    return { run: first.run, created: false, sameBody: first.bodyHash === null || first.bodyHash === k.bodyHash };
  }
}
