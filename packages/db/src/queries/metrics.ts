import type { Db } from '../client.js';

/**
 * Upsert one step's metric points for a run in a single multi-row statement (idempotent on
 * run+key+step), and keep the per-key summary (latest, max, min) that run lists read.
 */
export async function upsertMetrics(
  db: Db,
  runId: string,
  step: number,
  values: Record<string, number>,
  wallTime = new Date(),
): Promise<number> {
  const entries = Object.entries(values).filter(([, v]) => Number.isFinite(v));
  if (!entries.length) return 0;
  const params: unknown[] = [runId, step, wallTime];
  const rows = entries.map(([k, v], i) => {
    params.push(k, v);
    return `($1::uuid, $${4 + 2 * i}, $2::int, $${5 + 2 * i}::float8, $3::timestamptz)`;
  });
  await db.$executeRawUnsafe(
    `INSERT INTO metric_points (run_id, key, step, value, wall_time) VALUES ${rows.join(', ')}
     ON CONFLICT (run_id, key, step) DO UPDATE SET value = EXCLUDED.value, wall_time = EXCLUDED.wall_time`,
    ...params,
  );
  await db.$executeRawUnsafe(
    `INSERT INTO metric_summaries (run_id, key, step, value, max_value, min_value, updated_at)
     SELECT run_id, key, step, value, value, value, now() FROM metric_points WHERE run_id = $1::uuid AND step = $2::int AND key = ANY($3::text[])
     ON CONFLICT (run_id, key) DO UPDATE SET
       step = CASE WHEN EXCLUDED.step >= metric_summaries.step THEN EXCLUDED.step ELSE metric_summaries.step END,
       value = CASE WHEN EXCLUDED.step >= metric_summaries.step THEN EXCLUDED.value ELSE metric_summaries.value END,
       max_value = GREATEST(metric_summaries.max_value, EXCLUDED.value),
       min_value = LEAST(metric_summaries.min_value, EXCLUDED.value),
       updated_at = now()`,
    runId,
    step,
    entries.map(([k]) => k),
  );
  return entries.length;
}
