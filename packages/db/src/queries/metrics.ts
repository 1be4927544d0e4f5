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

/**
 * Keep at most `maxPoints` of a step-ordered series: per bucket the first, last, minimum and
 * maximum points survive, so spikes and collapses stay visible.
 */
export function downsampleExtremes<P extends { step: number; value: number }>(points: P[], maxPoints: number): P[] {
  if (points.length <= maxPoints) return points;
  const buckets = Math.max(1, Math.floor(maxPoints / 4));
  const size = points.length / buckets;
  const out: P[] = [];
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor(b * size);
    const hi = Math.min(points.length, Math.floor((b + 1) * size));
    let min = lo;
    let max = lo;
    for (let i = lo; i < hi; i++) {
      if (points[i]!.value < points[min]!.value) min = i;
      if (points[i]!.value > points[max]!.value) max = i;
    }
    for (const i of [...new Set([lo, min, max, hi - 1])].sort((a, c) => a - c)) out.push(points[i]!);
  }
  return out;
}
