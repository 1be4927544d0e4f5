import { poolOf, type Db } from '../client.js';

/**
 * Measured training speed of a preset, for the New run form's duration estimate: the median seconds
 * per 1,000 tokens of reply budget, a training step's (envGroups × groupSize × maxNewTokens) and a
 * validation's (validation.size × maxNewTokens), from the `timing_s/step` and `timing_s/testing`
 * points runs store. Per budget token, so a run with other rollout sizes than those measured scales.
 */
export interface MeasuredRates {
  stepSecondsPer1k: number | null;
  validationSecondsPer1k: number | null;
  /** Timed training steps behind stepSecondsPer1k. */
  steps: number;
  /** Runs those steps come from. */
  runs: number;
  /** Names of the workers that ran them. */
  workers: string[];
}

export interface RateQuery {
  preset: string;
  /** config.model.base; any base when absent. */
  base?: string;
  /** A worker without a heartbeat for this long is not online (WORKER_STALE_MS). */
  staleMs: number;
}

/** Training steps the online workers' figure reads: enough for a steady median, recent enough to follow the machine's load. */
const RECENT_STEPS = 40;
/** Finished runs the deployment's figure reads. */
const RECENT_RUNS = 3;

const ONLINE = `status <> 'offline' AND last_heartbeat > now() - make_interval(secs => $3::float8 / 1000)`;
const SAME_PRESET = `r.kind = 'train' AND r.preset = $1 AND ($2::text IS NULL OR r.config #>> '{model,base}' = $2)`;

/**
 * Runs trained by a worker on the same host and engine as a worker online now: the machine that will
 * take the next run, across its restarts (each start registers a new worker row).
 */
const ONLINE_WORKERS_RUNS = `
  SELECT r.id, r.config, w.name AS worker FROM runs r JOIN workers w ON w.id = r.worker_id
  WHERE ${SAME_PRESET} AND EXISTS (SELECT 1 FROM workers o WHERE ${ONLINE} AND o.host = w.host AND o.engine = w.engine)`;

/** The last finished runs with at least one timed step, whichever worker ran them. */
const LAST_FINISHED_RUNS = `
  SELECT r.id, r.config, w.name AS worker FROM runs r LEFT JOIN workers w ON w.id = r.worker_id
  WHERE ${SAME_PRESET} AND r.finished_at IS NOT NULL
    AND EXISTS (SELECT 1 FROM metric_blocks b WHERE b.run_id = r.id AND b.key = 'timing_s/step')
  ORDER BY r.finished_at DESC LIMIT ${RECENT_RUNS}`;

/** The median rates of the chosen runs' newest `recent` steps and validations (all of them when null). */
const ratesSql = (chosen: string, recent: number | null) => `
  WITH chosen AS (${chosen}),
  pts AS (
    SELECT c.id, c.worker, p.key,
      p.value * 1000 / NULLIF((c.config #>> '{rollout,maxNewTokens}')::float8 * CASE p.key
        WHEN 'timing_s/step' THEN (c.config #>> '{rollout,envGroups}')::float8 * (c.config #>> '{rollout,groupSize}')::float8
        ELSE (c.config #>> '{rollout,validation,size}')::float8 END, 0) AS rate,
      row_number() OVER (PARTITION BY p.key ORDER BY p.wall_time DESC) AS k
    FROM chosen c JOIN metric_points p ON p.run_id = c.id AND p.key IN ('timing_s/step', 'timing_s/testing')
  )
  SELECT key, percentile_cont(0.5) WITHIN GROUP (ORDER BY rate) AS rate, count(*)::int AS n,
    count(DISTINCT id)::int AS runs, array_remove(array_agg(DISTINCT worker), NULL) AS workers
  FROM pts WHERE rate IS NOT NULL ${recent === null ? '' : `AND k <= ${recent}`} GROUP BY key`;

async function rates(db: Db, sql: string, params: unknown[]): Promise<MeasuredRates> {
  const { rows } = await poolOf(db).query<{ key: string; rate: number; n: number; runs: number; workers: string[] }>(sql, params);
  const step = rows.find((r) => r.key === 'timing_s/step');
  const val = rows.find((r) => r.key === 'timing_s/testing');
  return {
    stepSecondsPer1k: step?.rate ?? null,
    validationSecondsPer1k: val?.rate ?? null,
    steps: step?.n ?? 0,
    runs: step?.runs ?? 0,
    workers: step?.workers.sort() ?? [],
  };
}

/** The recent training steps of this preset on the machines of the workers online now. */
export const onlineWorkerRates = (db: Db, q: RateQuery) =>
  rates(db, ratesSql(ONLINE_WORKERS_RUNS, RECENT_STEPS), [q.preset, q.base ?? null, q.staleMs]);

/** Every timed step of the last finished runs of this preset on the deployment. */
export const lastRunsRates = (db: Db, q: Omit<RateQuery, 'staleMs'>) =>
  rates(db, ratesSql(LAST_FINISHED_RUNS, null), [q.preset, q.base ?? null]);

/** The engines of the workers online now (a slow one is named beside the estimate). */
export async function onlineWorkerEngines(db: Db, staleMs: number): Promise<{ name: string; engine: string }[]> {
  const { rows } = await poolOf(db).query<{ name: string; engine: string }>(
    `SELECT name, engine FROM workers WHERE ${ONLINE.replaceAll('$3', '$1')} ORDER BY name`,
    [staleMs],
  );
  return rows;
}
