import type { Db } from '../client.js';
import { pgText } from './pg-text.js';

export interface MetricPointInput {
  key: string;
  step: number;
  value: number;
  time?: Date;
}

/**
 * Upsert metric points of a run in one statement over unnested arrays (idempotent on
 * run+key+step; within one call the last point for a key+step wins), and keep the per-key
 * summary (latest, max, min) that run lists read. Non-finite values are skipped.
 */
export async function upsertMetricPoints(db: Db, runId: string, points: MetricPointInput[]): Promise<number> {
  const byId = new Map<string, MetricPointInput>();
  for (const p of points) if (Number.isFinite(p.value)) byId.set(`${p.step}\u0001${p.key}`, p);
  if (!byId.size) return 0;
  const rows = [...byId.values()];
  const now = new Date();
  // one round trip: the points upsert runs as a data-modifying CTE beside the summary upsert
  await db.$executeRawUnsafe(
    `WITH input AS (SELECT * FROM unnest($2::text[], $3::int[], $4::float8[], $5::timestamptz[]) AS u(k, s, v, t)),
     points AS (
       INSERT INTO metric_points (run_id, key, step, value, wall_time) SELECT $1::uuid, k, s, v, t FROM input
       ON CONFLICT (run_id, key, step) DO UPDATE SET value = EXCLUDED.value, wall_time = EXCLUDED.wall_time)
     INSERT INTO metric_summaries (run_id, key, step, value, max_value, min_value, updated_at)
     SELECT $1::uuid, k, s, v, mx, mn, now() FROM (
       SELECT DISTINCT ON (k) k, s, v, max(v) OVER (PARTITION BY k) AS mx, min(v) OVER (PARTITION BY k) AS mn FROM input ORDER BY k, s DESC) b
     ON CONFLICT (run_id, key) DO UPDATE SET
       step = CASE WHEN EXCLUDED.step >= metric_summaries.step THEN EXCLUDED.step ELSE metric_summaries.step END,
       value = CASE WHEN EXCLUDED.step >= metric_summaries.step THEN EXCLUDED.value ELSE metric_summaries.value END,
       max_value = GREATEST(metric_summaries.max_value, EXCLUDED.max_value),
       min_value = LEAST(metric_summaries.min_value, EXCLUDED.min_value),
       updated_at = now()`,
    runId,
    rows.map((p) => pgText(p.key)),
    rows.map((p) => p.step),
    rows.map((p) => p.value),
    rows.map((p) => p.time ?? now),
  );
  return rows.length;
}

/** One step's metrics (what the trainer reports each step). */
export function upsertMetrics(db: Db, runId: string, step: number, values: Record<string, number>, wallTime = new Date()): Promise<number> {
  return upsertMetricPoints(
    db,
    runId,
    Object.entries(values).map(([key, value]) => ({ key, step, value, time: wallTime })),
  );
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
 * sorting). Series with at most `maxPoints` points come back whole.
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
  const rows = await db.$queryRawUnsafe<{ run_id: string; key: string; pts: number[][] }[]>(
    `WITH pts AS (
       SELECT run_id, key, step, value, extract(epoch FROM wall_time)::float8 AS t FROM metric_points
       WHERE run_id = ANY($1::uuid[]) AND ($2::text[] IS NULL OR key = ANY($2::text[]))
         AND ($3::int IS NULL OR step >= $3::int) AND ($4::int IS NULL OR step <= $4::int)),
     bounds AS (SELECT run_id, key, min(step) AS lo, max(step) AS hi, count(*) AS n FROM pts GROUP BY run_id, key),
     agg AS (
       SELECT p.run_id, p.key,
              min(ARRAY[p.step::float8, p.value, p.t]) AS first, max(ARRAY[p.step::float8, p.value, p.t]) AS last,
              min(ARRAY[p.value, p.step::float8, p.t]) AS lo_v, max(ARRAY[p.value, p.step::float8, p.t]) AS hi_v
       FROM pts p JOIN bounds b USING (run_id, key)
       GROUP BY p.run_id, p.key,
                CASE WHEN b.n <= $5 THEN p.step ELSE floor((p.step - b.lo)::float8 * $6 / (b.hi - b.lo + 1))::int END)
     SELECT run_id::text, key, array_agg(ARRAY[first[1], first[2], first[3], last[1], last[2], last[3], lo_v[2], lo_v[1], lo_v[3], hi_v[2], hi_v[1], hi_v[3]]) AS pts
     FROM agg GROUP BY run_id, key ORDER BY run_id, key`,
    runIds,
    keys,
    from,
    to,
    maxPoints,
    buckets,
  );
  return rows.map((r) => {
    const byStep = new Map<number, SeriesPoint>();
    for (const b of r.pts) for (let i = 0; i < 12; i += 3) byStep.set(b[i]!, { step: b[i]!, value: b[i + 1]!, time: b[i + 2]! });
    return { runId: r.run_id, key: r.key, points: [...byStep.values()].sort((a, b) => a.step - b.step) };
  });
}
