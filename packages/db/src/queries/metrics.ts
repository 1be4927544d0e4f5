import { poolOf, type Db } from '../client.js';
import { retryAttempts } from '../retry.js';
import { LeaseLostError } from './leases.js';
import { pgText } from './pg-text.js';

export interface MetricPointInput {
  key: string;
  step: number;
  value: number;
  time?: Date;
}

/**
 * Rollup block aggregates over rows (k, s, v, t): the first, last, lowest and highest point with
 * its step and time (array min/max pick the whole point in one hash aggregate).
 */
const BLOCK_AGGREGATES = `count(*)::int AS n,
  min(ARRAY[s::float8, v, extract(epoch FROM t)]) AS f, max(ARRAY[s::float8, v, extract(epoch FROM t)]) AS l,
  min(ARRAY[v, s::float8, extract(epoch FROM t)]) AS lo, max(ARRAY[v, s::float8, extract(epoch FROM t)]) AS hi`;
/** Steps per rollup block (bucket = step >> 6). */
export const ROLLUP_STEPS = 64;

/** Per series, the buckets' first, last, lowest and highest points as [step, value, time] triples, flattened. */
const SERIES_ARRAYS = `SELECT run_id::text, key,
       array_agg(ARRAY[first[1], first[2], first[3], last[1], last[2], last[3], lo_v[2], lo_v[1], lo_v[3], hi_v[2], hi_v[1], hi_v[3]]) AS pts
     FROM agg GROUP BY run_id, key`;

const BLOCK_COLUMNS = `n, f[1]::int, f[2], f[3], l[1]::int, l[2], l[3], lo[2]::int, lo[1], lo[3], hi[2]::int, hi[1], hi[3]`;

/**
 * Upsert metric points of a run in one statement over unnested arrays (idempotent on
 * run+key+step; within one call the last point for a key+step wins), and keep the per-key
 * summary (latest, max, min) that run lists read. Non-finite values are skipped.
 * With `lease`, the statement first locks the run row in share mode and writes nothing unless the
 * run still carries that lease epoch (then it throws LeaseLostError); each point records its lease.
 */
export async function upsertMetricPoints(
  db: Db,
  runId: string,
  points: MetricPointInput[],
  opts: { lease?: number } = {},
): Promise<number> {
  // Columns travel as arrays: each distinct key once with a 1-based index per point (escaping and
  // sending every point's key was the client's largest cost), times as epoch seconds (float8).
  const keyIndex = new Map<string, number>();
  const byId = new Map<number, MetricPointInput>(); // key index and step → the call's last point there
  for (const p of points) {
    if (!Number.isFinite(p.value)) continue;
    let k = keyIndex.get(p.key);
    if (k === undefined) keyIndex.set(p.key, (k = keyIndex.size + 1));
    byId.set(k * 2 ** 32 + (p.step >>> 0), p);
  }
  if (!byId.size) return 0;
  const rows = [...byId.values()];
  const now = Date.now() / 1000;
  const keyOf = new Array<number>(rows.length);
  const steps = new Array<number>(rows.length);
  const values = new Array<number>(rows.length);
  const times = new Array<number>(rows.length);
  rows.forEach((p, i) => {
    keyOf[i] = keyIndex.get(p.key)!;
    steps[i] = p.step;
    values[i] = p.value;
    times[i] = p.time ? p.time.getTime() / 1000 : now;
  });
  const keys = [...keyIndex.keys()].map(pgText);
  // one round trip: the points upsert and the rollup merge run as data-modifying CTEs beside the summary upsert
  // Rows are written in key/step order so concurrent writers lock in the same order; a deadlock
  // that still happens between the three tables is retried (the statement is idempotent).
  // The fence also stands in for a foreign key (metric_points has none: its per-row check was a third
  // of an insert): KEY SHARE keeps the run from being deleted under the statement.
  const fenced = opts.lease !== undefined;
  const fence = fenced
    ? `SELECT 1 FROM runs WHERE id = $1::uuid AND lease_epoch = $6::int FOR SHARE`
    : `SELECT 1 FROM runs WHERE id = $1::uuid FOR KEY SHARE`;
  const pool = poolOf(db);
  const {
    rows: [result],
  } = await retryAttempts(
    () =>
      pool.query<{ replaced: number; fenced: number }>(
        `WITH fence AS (${fence}),
     input AS (SELECT ($2::text[])[ki] AS k, s, v, to_timestamp(t) AS t FROM unnest($7::int[], $3::int[], $4::float8[], $5::float8[]) AS u(ki, s, v, t)
               WHERE EXISTS (SELECT 1 FROM fence)),
     points AS (
       INSERT INTO metric_points (run_id, key, step, value, wall_time, lease) SELECT $1::uuid, k, s, v, t, $6::int FROM input ORDER BY k, s
       ON CONFLICT (run_id, key, step) DO UPDATE SET value = EXCLUDED.value, wall_time = EXCLUDED.wall_time, lease = EXCLUDED.lease
       RETURNING key, step, xmax <> 0 AS replaced),
     summary AS (
       INSERT INTO metric_summaries (run_id, key, step, value, max_value, min_value, updated_at)
       SELECT $1::uuid, k, s, v, mx, mn, now() FROM (
         SELECT DISTINCT ON (k) k, s, v, max(v) OVER (PARTITION BY k) AS mx, min(v) OVER (PARTITION BY k) AS mn FROM input ORDER BY k, s DESC) b ORDER BY k
       ON CONFLICT (run_id, key) DO UPDATE SET
         step = CASE WHEN EXCLUDED.step >= metric_summaries.step THEN EXCLUDED.step ELSE metric_summaries.step END,
         value = CASE WHEN EXCLUDED.step >= metric_summaries.step THEN EXCLUDED.value ELSE metric_summaries.value END,
         max_value = GREATEST(metric_summaries.max_value, EXCLUDED.max_value),
         min_value = LEAST(metric_summaries.min_value, EXCLUDED.min_value),
         updated_at = now()),
     rollup AS (
       INSERT INTO metric_rollups AS r SELECT $1::uuid, k, bucket, ${BLOCK_COLUMNS}
       FROM (SELECT k, s >> 6 AS bucket, ${BLOCK_AGGREGATES} FROM input GROUP BY k, s >> 6) g ORDER BY k, bucket
       ON CONFLICT (run_id, key, bucket) DO UPDATE SET
         n = r.n + EXCLUDED.n,
         first_step = LEAST(r.first_step, EXCLUDED.first_step),
         first_value = CASE WHEN EXCLUDED.first_step <= r.first_step THEN EXCLUDED.first_value ELSE r.first_value END,
         first_time = CASE WHEN EXCLUDED.first_step <= r.first_step THEN EXCLUDED.first_time ELSE r.first_time END,
         last_step = GREATEST(r.last_step, EXCLUDED.last_step),
         last_value = CASE WHEN EXCLUDED.last_step >= r.last_step THEN EXCLUDED.last_value ELSE r.last_value END,
         last_time = CASE WHEN EXCLUDED.last_step >= r.last_step THEN EXCLUDED.last_time ELSE r.last_time END,
         min_step = CASE WHEN EXCLUDED.min_value < r.min_value THEN EXCLUDED.min_step ELSE r.min_step END,
         min_time = CASE WHEN EXCLUDED.min_value < r.min_value THEN EXCLUDED.min_time ELSE r.min_time END,
         min_value = LEAST(r.min_value, EXCLUDED.min_value),
         max_step = CASE WHEN EXCLUDED.max_value > r.max_value THEN EXCLUDED.max_step ELSE r.max_step END,
         max_time = CASE WHEN EXCLUDED.max_value > r.max_value THEN EXCLUDED.max_time ELSE r.max_time END,
         max_value = GREATEST(r.max_value, EXCLUDED.max_value))
     SELECT count(*) FILTER (WHERE replaced)::int AS replaced, (SELECT count(*) FROM fence)::int AS fenced FROM points`,
        [runId, keys, steps, values, times, opts.lease ?? null, keyOf],
      ),
    { attempts: 4, delayMs: (attempt) => 20 * attempt + Math.random() * 30, retryIf: isDeadlock },
  );
  if (result!.fenced === 0) {
    if (fenced) throw new LeaseLostError(runId, opts.lease!);
    throw new Error(`metric points for run ${runId}, which does not exist`);
  }
  // Re-written steps (a retried or corrected write) can leave a stale extreme or count in a merged
  // rollup: recompute those blocks from the points, which now hold the new values.
  if (result!.replaced > 0) await recomputeRollups(db, runId, rows);
  return rows.length;
}

const isDeadlock = (e: unknown) => /deadlock detected|40P01/.test(String((e as Error)?.message ?? e));

/**
 * Rebuild the rollup blocks that `points` fall in from the stored points. The same statement touches
 * the keys' summary rows, so the run's metric version (metricVersions) changes with the blocks.
 */
async function recomputeRollups(db: Db, runId: string, points: MetricPointInput[]): Promise<void> {
  const blocks = new Map<string, [string, number]>();
  for (const p of points) blocks.set(`${p.step >> 6}\u0001${p.key}`, [pgText(p.key), p.step >> 6]);
  await db.$executeRawUnsafe(
    `WITH touched AS (UPDATE metric_summaries SET updated_at = now() WHERE run_id = $1::uuid AND key = ANY($2::text[]))
     INSERT INTO metric_rollups AS r SELECT $1::uuid, k, bucket, ${BLOCK_COLUMNS}
     FROM (SELECT p.key AS k, p.step >> 6 AS bucket, ${BLOCK_AGGREGATES}
           FROM (SELECT run_id, key, step, step AS s, value AS v, wall_time AS t FROM metric_points) p
           JOIN unnest($2::text[], $3::int[]) AS b(bk, bb) ON p.key = b.bk AND p.step >> 6 = b.bb
           WHERE p.run_id = $1::uuid GROUP BY p.key, p.step >> 6) g
     ON CONFLICT (run_id, key, bucket) DO UPDATE SET n = EXCLUDED.n,
       first_step = EXCLUDED.first_step, first_value = EXCLUDED.first_value, first_time = EXCLUDED.first_time,
       last_step = EXCLUDED.last_step, last_value = EXCLUDED.last_value, last_time = EXCLUDED.last_time,
       min_step = EXCLUDED.min_step, min_value = EXCLUDED.min_value, min_time = EXCLUDED.min_time,
       max_step = EXCLUDED.max_step, max_value = EXCLUDED.max_value, max_time = EXCLUDED.max_time`,
    runId,
    [...blocks.values()].map((b) => b[0]),
    [...blocks.values()].map((b) => b[1]),
  );
}

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
 * series upserts the key's summary row in the same statement as its points and rollup blocks (and a
 * rollup recompute touches it too), so any committed change to a run's stored metrics changes its
 * version; a run with no metrics has none. Read before and after a series read, an unchanged version
 * says the read saw exactly that state (what MetricsService caches by).
 */
export async function metricVersions(db: Db, runIds: string[]): Promise<Map<string, string>> {
  const rows = await db.$queryRawUnsafe<{ run_id: string; v: string }[]>(
    `SELECT run_id::text, md5(string_agg(key || ' ' || xmin::text, ',' ORDER BY key)) AS v
     FROM metric_summaries WHERE run_id = ANY($1::uuid[]) GROUP BY run_id`,
    runIds,
  );
  return new Map(rows.map((r) => [r.run_id, r.v]));
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
 * series aggregate the 64-step rollup blocks instead of the points (about 64× fewer rows).
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
  // Whole-history views of long series read the 64-step rollup blocks instead of every point,
  // when a display bucket spans at least one block. Every stored point is in a block (the same
  // statement writes both), so the blocks also list every series: the rest are read from their points
  // by key, and a view whose series are all long reads no point at all.
  const whole = from === null && to === null;
  const series = whole
    ? await db.$queryRawUnsafe<{ run_id: string; key: string; lo: number; hi: number; n: number }[]>(
        `SELECT run_id::text, key, min(first_step) AS lo, max(last_step) AS hi, sum(n)::int AS n FROM metric_rollups
         WHERE run_id = ANY($1::uuid[]) AND ($2::text[] IS NULL OR key = ANY($2::text[])) GROUP BY run_id, key`,
        runIds,
        keys,
      )
    : [];
  const isLong = (r: (typeof series)[number]) => r.n > maxPoints && (r.hi - r.lo + 1) / buckets >= ROLLUP_STEPS;
  const long = series.filter(isLong);
  const short = series.filter((r) => !isLong(r));
  const fromPoints =
    whole && !short.length
      ? Promise.resolve([])
      : db.$queryRawUnsafe<{ run_id: string; key: string; pts: number[][] }[]>(
          `WITH pts AS (
       SELECT run_id, key, step, value, extract(epoch FROM wall_time)::float8 AS t FROM metric_points
       WHERE run_id = ANY($1::uuid[]) AND ($2::text[] IS NULL OR key = ANY($2::text[]))
         AND ($3::int IS NULL OR step >= $3::int) AND ($4::int IS NULL OR step <= $4::int)
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
           FROM metric_rollups r JOIN sel USING (run_id, key)
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

/** Every point of the runs' series (all keys when `keys` is empty) in a step range, ordered by run, key and step. */
export function metricPoints(db: Db, runIds: string[], keys: string[], from?: number, to?: number) {
  return db.metricPoint.findMany({
    where: {
      runId: { in: runIds },
      ...(keys.length ? { key: { in: keys } } : {}),
      ...(from !== undefined || to !== undefined ? { step: { gte: from, lte: to } } : {}),
    },
    orderBy: [{ runId: 'asc' }, { key: 'asc' }, { step: 'asc' }],
  });
}

/** The metric keys a run has, sorted. */
export async function metricKeys(db: Db, runId: string): Promise<string[]> {
  const rows = await db.metricSummary.findMany({ where: { runId }, select: { key: true }, orderBy: { key: 'asc' } });
  return rows.map((r) => r.key);
}
