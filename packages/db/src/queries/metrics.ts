import type { RunNotice } from '@starpo/contracts';
import { poolOf, type Db } from '../client.js';
import { EVENTS_CHANNEL } from './events.js';
import { externalTouch } from './runs.js';
import { retryAttempts } from '../retry.js';
import { LeaseLostError } from './leases.js';
import { pgText } from './pg-text.js';
import { BLOCK_SHIFT, BLOCK_STEPS, pgNumbers, toBlockColumns, type MetricPointInput } from './metric-blocks.js';

export { storedPointCount, type MetricPointInput } from './metric-blocks.js';

/** Per series, the buckets' first, last, lowest and highest points as [step, value, time] triples, flattened. */
const SERIES_ARRAYS = `SELECT run_id::text, key,
       array_agg(ARRAY[first[1], first[2], first[3], last[1], last[2], last[3], lo_v[2], lo_v[1], lo_v[3], hi_v[2], hi_v[1], hi_v[3]]) AS pts
     FROM agg GROUP BY run_id, key`;

const MERGED_COLUMNS = `steps, vals, times, leases, n, first_step, first_value, first_time, last_step, last_value, last_time,
  min_step, min_value, min_time, max_step, max_value, max_time`;

/**
 * Every point of the blocks, with run_id, key, bucket, step, value and t (epoch seconds): what the
 * metric_points view gives, without converting each time to a timestamp and back.
 */
const BLOCK_POINTS = `metric_blocks b CROSS JOIN LATERAL unnest(b.steps, b.vals, b.times) AS u(step, value, t)`;

/** Step-range conditions on BLOCK_POINTS or metric_points ($from, $to: int or null), naming the blocks too so only theirs are unnested. */
const stepRange = (from: string, to: string) =>
  `(${from}::int IS NULL OR (bucket >= ${from}::int >> ${BLOCK_SHIFT} AND step >= ${from}::int))
   AND (${to}::int IS NULL OR (bucket <= ${to}::int >> ${BLOCK_SHIFT} AND step <= ${to}::int))`;

/**
 * Upsert metric points of a run in one statement. The points are cut into their 64-step blocks here
 * (toBlockColumns), so Postgres only slices arrays; each block is merged into the stored one
 * (metric_block_merge: a step both hold takes the new point, so a replayed batch stores nothing
 * twice; within one call the last point for a key+step wins), and the per-key summary (latest,
 * max, min) that run lists read is kept. Non-finite values are skipped.
 * With `lease`, the statement first locks the run row in share mode and writes nothing unless the
 * run still carries that lease epoch (then it throws LeaseLostError); each point records its lease.
 */
export async function upsertMetricPoints(
  db: Db,
  runId: string,
  points: MetricPointInput[],
  opts: { lease?: number } = {},
): Promise<number> {
  const fenced = opts.lease !== undefined;
  const stored = await writeBlocks(
    db,
    runId,
    points,
    fenced
      ? { name: 'fenced', sql: `SELECT 1 FROM runs WHERE id = $1::uuid AND lease_epoch = $6::int FOR SHARE`, lease: opts.lease }
      : { name: 'plain', sql: `SELECT 1 FROM runs WHERE id = $1::uuid FOR KEY SHARE` },
  );
  if (stored === null) {
    if (fenced) throw new LeaseLostError(runId, opts.lease!);
    throw new Error(`metric points for run ${runId}, which does not exist`);
  }
  return stored;
}

/**
 * Metric points of an external run, sent by its trainer: the points, the run's heartbeat and
 * current step, and the live notices go in one statement, written only when the run is an
 * external run of `teamId` that is still running. Null when it is not (nothing is written then;
 * the caller finds out why); else the points stored.
 */
export function ingestExternalMetricPoints(
  db: Db,
  run: { id: string; teamId: string },
  points: MetricPointInput[],
  notices: RunNotice[],
): Promise<number | null> {
  const step = points.reduce((top, p) => Math.max(top, p.step), -Infinity);
  return writeBlocks(db, run.id, points, {
    name: 'external',
    // the UPDATE locks the run row to the end of the statement, so a concurrent finish waits for the points
    sql: `UPDATE runs SET ${externalTouch('$18')}
          WHERE id = $1::uuid AND team_id = $17::uuid AND kind = 'external' AND status = 'running' RETURNING 1`,
    extra: [run.teamId, step, EVENTS_CHANNEL, notices.map((n) => JSON.stringify(n))],
    notify: 'SELECT pg_notify($19, n) FROM unnest($20::text[]) AS n WHERE EXISTS (SELECT 1 FROM fence)',
  });
}

/**
 * What a write of metric blocks checks first: `sql` returns a row when the write may go ahead
 * ($1 is the run id, $6 the lease, `extra` values are $17…); `notify` runs only when it did.
 */
interface BlockFence {
  name: string;
  sql: string;
  lease?: number;
  extra?: unknown[];
  notify?: string;
}

/** Upsert the blocks and summaries of `points` behind `fence`; null when the fence refused (nothing written). */
async function writeBlocks(db: Db, runId: string, points: MetricPointInput[], fence: BlockFence): Promise<number | null> {
  const c = toBlockColumns(points, Date.now() / 1000);
  if (!c) return 0;
  // One round trip: the blocks and the summaries upsert as data-modifying CTEs, in key order (and
  // bucket order) so concurrent writers lock rows in the same order; a deadlock that still happens
  // between the two tables is retried (the statement is idempotent). The fence stands in for a
  // foreign key (metric_blocks has none: a trigger on runs deletes a run's blocks with it).
  const pool = poolOf(db);
  const {
    rows: [result],
  } = await retryAttempts(
    () =>
      pool.query<{ fenced: number }>({
        // prepared once per connection: planning the statement cost a fifth of a 1,000-point write
        name: `upsert-metric-points-${fence.name}`,
        text: `WITH fence AS (${fence.sql}),
     g AS (SELECT ($2::text[])[ki] AS k, bucket, n, lo, hi,
                  ($3::int[])[st:st + n - 1] AS steps, ($4::float8[])[st:st + n - 1] AS vals, ($5::float8[])[st:st + n - 1] AS times
           FROM unnest($7::int[], $8::int[], $9::int[], $10::int[], $11::int[], $12::int[]) AS u(ki, bucket, st, n, lo, hi)
           WHERE EXISTS (SELECT 1 FROM fence)),
     blocks AS (
       INSERT INTO metric_blocks AS b
       SELECT $1::uuid, k, bucket, steps, vals, times, array_fill($6::int, ARRAY[n]), n, steps[1], vals[1], times[1],
              steps[n], vals[n], times[n], steps[lo], vals[lo], times[lo], steps[hi], vals[hi], times[hi]
       FROM g ORDER BY k, bucket
       ON CONFLICT (run_id, key, bucket) DO UPDATE SET (${MERGED_COLUMNS}) =
         (SELECT ${MERGED_COLUMNS} FROM metric_block_merge(b, EXCLUDED))),
     summary AS (
       INSERT INTO metric_summaries (run_id, key, step, value, max_value, min_value, updated_at)
       SELECT $1::uuid, k, s, v, mx, mn, now() FROM unnest($2::text[], $13::int[], $14::float8[], $15::float8[], $16::float8[]) AS u(k, s, v, mx, mn)
       WHERE EXISTS (SELECT 1 FROM fence) ORDER BY k
       ON CONFLICT (run_id, key) DO UPDATE SET
         step = CASE WHEN EXCLUDED.step >= metric_summaries.step THEN EXCLUDED.step ELSE metric_summaries.step END,
         value = CASE WHEN EXCLUDED.step >= metric_summaries.step THEN EXCLUDED.value ELSE metric_summaries.value END,
         max_value = GREATEST(metric_summaries.max_value, EXCLUDED.max_value),
         min_value = LEAST(metric_summaries.min_value, EXCLUDED.min_value),
         updated_at = now())${fence.notify ? `,\n     notified AS (${fence.notify})` : ''}
     SELECT (SELECT count(*) FROM fence)::int AS fenced${fence.notify ? ', (SELECT count(*) FROM notified) AS notified' : ''}`,
        values: [
          runId,
          c.keys.map(pgText),
          ...[c.steps, c.values, c.times].map(pgNumbers),
          fence.lease ?? null,
          ...[c.blockKey, c.bucket, c.start, c.length, c.minAt, c.maxAt, c.lastStep, c.lastValue, c.maxValue, c.minValue].map(pgNumbers),
          ...(fence.extra ?? []),
        ],
      }),
    { attempts: 4, delayMs: (attempt) => 20 * attempt + Math.random() * 30, retryIf: isDeadlock },
  );
  return result!.fenced === 0 ? null : c.steps.length;
}

const isDeadlock = (e: unknown) => /deadlock detected|40P01/.test(String((e as Error)?.message ?? e));

/** One step's metrics (what the trainer reports each step). */
export function upsertMetrics(
  db: Db,
  runId: string,
  step: number,
  values: Record<string, number>,
  wallTime = new Date(),
  opts: { lease?: number } = {},
): Promise<number> {
  return upsertMetricPoints(
    db,
    runId,
    Object.entries(values).map(([key, value]) => ({ key, step, value, time: wallTime })),
    opts,
  );
}

/**
 * Each run's metric version: a digest of its summary rows' keys and transaction ids. Every write of a
 * series upserts the key's summary row in the same statement as its blocks, so any committed change
 * to a run's stored metrics changes its version; a run with no metrics has none. Read before and
 * after a series read, an unchanged version says the read saw exactly that state (what
 * MetricsService caches by).
 */
export async function metricVersions(db: Db, runIds: string[]): Promise<Map<string, string>> {
  const rows = await db.$queryRawUnsafe<{ run_id: string; v: string }[]>(
    `SELECT run_id::text, md5(string_agg(key || ' ' || xmin::text, ',' ORDER BY key)) AS v
     FROM metric_summaries WHERE run_id = ANY($1::uuid[]) GROUP BY run_id`,
    runIds,
  );
  return new Map(rows.map((r) => [r.run_id, r.v]));
}

/**
 * The metric versions (as metricVersions) of those of `runIds` that belong to `teamId`, '' for a run
 * without metrics: the team check and the version of a metrics read in one statement.
 */
export async function teamMetricVersions(db: Db, teamId: string, runIds: string[]): Promise<Map<string, string>> {
  const rows = await db.$queryRawUnsafe<{ run_id: string; v: string | null }[]>(
    `SELECT r.id::text AS run_id, (SELECT md5(string_agg(s.key || ' ' || s.xmin::text, ',' ORDER BY s.key))
                                     FROM metric_summaries s WHERE s.run_id = r.id) AS v
     FROM runs r WHERE r.id = ANY($1::uuid[]) AND r.team_id = $2::uuid`,
    runIds,
    teamId,
  );
  return new Map(rows.map((r) => [r.run_id, r.v ?? '']));
}

/** The order series are answered in: by run, then key. */
export function bySeries(a: { runId: string; key: string }, b: { runId: string; key: string }): number {
  return a.runId === b.runId ? (a.key < b.key ? -1 : 1) : a.runId < b.runId ? -1 : 1;
}

export interface SeriesPoint {
  step: number;
  value: number;
  time: number;
}

/**
 * Downsampled series computed in Postgres: each series' step range is cut into
 * `floor(maxPoints / 4)` buckets and each bucket keeps its first, last, minimum and maximum points
 * (array min/max aggregates pick the point with its step, so one hash aggregate does it without
 * sorting). Series with at most `maxPoints` points come back whole. Whole-history views of long
 * series aggregate the 64-step blocks' stored extremes instead of the points (64× fewer rows).
 */
export async function downsampledSeries(
  db: Db,
  runIds: string[],
  keys: string[] | null,
  from: number | null,
  to: number | null,
  maxPoints: number,
): Promise<{ runId: string; key: string; points: SeriesPoint[] }[]> {
  const buckets = Math.max(1, Math.floor(maxPoints / 4));
  // Whole-history views of long series read the 64-step blocks' extremes instead of every point,
  // when a display bucket spans at least one block. The blocks list every series: the rest are
  // read from their points by key, and a view whose series are all long unnests no point at all.
  const whole = from === null && to === null;
  const series = whole
    ? await db.$queryRawUnsafe<{ run_id: string; key: string; lo: number; hi: number; n: number }[]>(
        `SELECT run_id::text, key, min(first_step) AS lo, max(last_step) AS hi, sum(n)::int AS n FROM metric_blocks
         WHERE run_id = ANY($1::uuid[]) AND ($2::text[] IS NULL OR key = ANY($2::text[])) GROUP BY run_id, key`,
        runIds,
        keys,
      )
    : [];
  const isLong = (r: (typeof series)[number]) => r.n > maxPoints && (r.hi - r.lo + 1) / buckets >= BLOCK_STEPS;
  const long = series.filter(isLong);
  const short = series.filter((r) => !isLong(r));
  const fromPoints =
    whole && !short.length
      ? Promise.resolve([])
      : db.$queryRawUnsafe<{ run_id: string; key: string; pts: number[][] }[]>(
          `WITH pts AS (
       SELECT run_id, key, step, value, t FROM ${BLOCK_POINTS}
       WHERE run_id = ANY($1::uuid[]) AND ($2::text[] IS NULL OR key = ANY($2::text[]))
         AND ${stepRange('$3', '$4')}
         AND ($7::uuid[] IS NULL OR (run_id, key) IN (SELECT * FROM unnest($7::uuid[], $8::text[])))),
     bounds AS (SELECT run_id, key, min(step) AS lo, max(step) AS hi, count(*) AS n FROM pts GROUP BY run_id, key),
     agg AS (
       SELECT p.run_id, p.key,
              min(ARRAY[p.step::float8, p.value, p.t]) AS first, max(ARRAY[p.step::float8, p.value, p.t]) AS last,
              min(ARRAY[p.value, p.step::float8, p.t]) AS lo_v, max(ARRAY[p.value, p.step::float8, p.t]) AS hi_v
       FROM pts p JOIN bounds b USING (run_id, key)
       GROUP BY p.run_id, p.key,
                CASE WHEN b.n <= $5 THEN p.step ELSE floor((p.step - b.lo)::float8 * $6 / (b.hi - b.lo + 1))::int END)
     ${SERIES_ARRAYS}`,
          runIds,
          keys,
          from,
          to,
          maxPoints,
          buckets,
          whole ? short.map((r) => r.run_id) : null,
          whole ? short.map((r) => r.key) : null,
        );
  const fromRollups = long.length
    ? db.$queryRawUnsafe<{ run_id: string; key: string; pts: number[][] }[]>(
        `WITH sel AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::int[]) AS u(run_id, key, lo, hi)),
         agg AS (
           SELECT r.run_id, r.key,
                  min(ARRAY[r.first_step::float8, r.first_value, r.first_time]) AS first,
                  max(ARRAY[r.last_step::float8, r.last_value, r.last_time]) AS last,
                  min(ARRAY[r.min_value, r.min_step::float8, r.min_time]) AS lo_v,
                  max(ARRAY[r.max_value, r.max_step::float8, r.max_time]) AS hi_v
           FROM metric_blocks r JOIN sel USING (run_id, key)
           GROUP BY r.run_id, r.key, floor((r.first_step - sel.lo)::float8 * $5 / (sel.hi - sel.lo + 1))::int)
         ${SERIES_ARRAYS}`,
        long.map((r) => r.run_id),
        long.map((r) => r.key),
        long.map((r) => r.lo),
        long.map((r) => r.hi),
        buckets,
      )
    : Promise.resolve([]);
  const rows = [...(await fromPoints), ...(await fromRollups)];
  return rows
    .map((r) => {
      const byStep = new Map<number, SeriesPoint>();
      for (const b of r.pts) for (let i = 0; i < 12; i += 3) byStep.set(b[i]!, { step: b[i]!, value: b[i + 1]!, time: b[i + 2]! });
      return { runId: r.run_id, key: r.key, points: [...byStep.values()].sort((a, b) => a.step - b.step) };
    })
    .sort(bySeries);
}

/** Every point of the runs' series (all keys when `keys` is empty) in a step range, ordered by run, key and step; `time` in epoch seconds. */
export function metricPoints(
  db: Db,
  runIds: string[],
  keys: string[],
  from?: number,
  to?: number,
): Promise<{ runId: string; key: string; step: number; value: number; time: number }[]> {
  return db.$queryRawUnsafe(
    `SELECT run_id::text AS "runId", key, step, value, t AS time FROM ${BLOCK_POINTS}
     WHERE run_id = ANY($1::uuid[]) AND (cardinality($2::text[]) = 0 OR key = ANY($2::text[])) AND ${stepRange('$3', '$4')}
     ORDER BY run_id, key, step`,
    runIds,
    keys,
    from ?? null,
    to ?? null,
  );
}

/** A run's points from step `from` (to `to`), ordered by step then key as live clients take them; at most `limit`. */
export function runPointsByStep(
  db: Db,
  runId: string,
  from: number,
  to: number | null,
  limit: number | null = null,
): Promise<{ key: string; step: number; value: number }[]> {
  return db.$queryRawUnsafe(
    `SELECT key, step, value FROM ${BLOCK_POINTS} WHERE run_id = $1::uuid AND ${stepRange('$2', '$3')} ORDER BY step, key LIMIT $4`,
    runId,
    from,
    to,
    limit,
  );
}

/** The metric keys a run has, sorted. */
export async function metricKeys(db: Db, runId: string): Promise<string[]> {
  const rows = await db.metricSummary.findMany({ where: { runId }, select: { key: true }, orderBy: { key: 'asc' } });
  return rows.map((r) => r.key);
}
