import type pg from 'pg';
import { poolOf, type Db } from '../client.js';
import { contradictedClaimExamples, type ClaimExampleRow } from './claims.js';

/**
 * `step_diagnostic_counts` holds, per run, step and split, what a run's diagnostics summary adds up:
 * the trajectory count (kind `trajectories`), each flag's trajectory count (`flag`) and each
 * contradicted-claim pattern's claim count (`claims`). A summary over a whole run then reads a few rows
 * per step instead of every trajectory and claim row of the run.
 *
 * Every writer of trajectories, flags or claims refreshes the steps it touched, in its own transaction,
 * after taking the run's write lock (`lockRuns`): the refresh recounts those steps from the stored rows,
 * and the lock makes each writer's recount see the writes committed before it. A writer that knows
 * exactly what it added and removed (a batch extended a request at a time) adds that instead.
 */

/** Anything that runs a parameterised statement: a pool or a client inside a transaction. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/** Takes the write lock of each run (released at commit), in one order so two writers cannot deadlock. */
export async function lockRuns(q: Queryable, runIds: string[]): Promise<void> {
  for (const id of [...new Set(runIds)].sort()) await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [id]);
}

/** $1: run ids, $2: steps (pairs). The recount of those (run, step) pairs, from the trajectories and the claim index. */
export const COUNT_STEPS_SQL = `
  WITH k AS (SELECT DISTINCT run_id, step FROM unnest($1::uuid[], $2::int[]) AS k(run_id, step))
  SELECT t.run_id, t.step, t.split, 'trajectories' AS kind, '' AS name, count(*)::int AS n
    FROM k JOIN trajectories t ON t.run_id = k.run_id AND t.step = k.step GROUP BY t.run_id, t.step, t.split
  UNION ALL
  SELECT t.run_id, t.step, t.split, 'flag', f, count(*)::int
    FROM k JOIN trajectories t ON t.run_id = k.run_id AND t.step = k.step CROSS JOIN LATERAL unnest(t.flags) AS f
    GROUP BY t.run_id, t.step, t.split, f
  UNION ALL
  SELECT c.run_id, c.step, c.split, 'claims', c.pattern, sum(c.claims)::int
    FROM k JOIN contradicted_claims c ON c.run_id = k.run_id AND c.step = k.step GROUP BY c.run_id, c.step, c.split, c.pattern`;

/** Recounts the given steps of a run (or of several: `runIds[i]` with `steps[i]`). Call under `lockRuns`. */
export async function refreshStepCounts(q: Queryable, runIds: string[], steps: number[]): Promise<void> {
  if (!steps.length) return;
  await q.query(
    `DELETE FROM step_diagnostic_counts d USING unnest($1::uuid[], $2::int[]) AS k(run_id, step)
     WHERE d.run_id = k.run_id AND d.step = k.step`,
    [runIds, steps],
  );
  await q.query(`INSERT INTO step_diagnostic_counts (run_id, step, split, kind, name, n) ${COUNT_STEPS_SQL}`, [runIds, steps]);
}

/** A change to one count of a (step, split): `n` more (or fewer) of it. */
export interface StepCountDelta {
  step: number;
  split: 'train' | 'val';
  kind: 'trajectories' | 'flag' | 'claims';
  name: string;
  n: number;
}

/**
 * Adds changes to a run's stored counts instead of recounting their steps (a writer that knows what
 * it added and removed); a count that reaches zero is dropped, as a recount would not have it. Call
 * under `lockRuns`, on counts that were current before the caller's writes.
 */
export async function addStepCounts(q: Queryable, runId: string, deltas: StepCountDelta[]): Promise<void> {
  const merged = new Map<string, StepCountDelta>();
  for (const d of deltas) {
    const key = JSON.stringify([d.step, d.split, d.kind, d.name]);
    const seen = merged.get(key);
    merged.set(key, seen ? { ...seen, n: seen.n + d.n } : d);
  }
  const changes = [...merged.values()].filter((d) => d.n !== 0);
  if (!changes.length) return;
  const columns = [changes.map((d) => d.step), changes.map((d) => d.split), changes.map((d) => d.kind), changes.map((d) => d.name)];
  await q.query(
    `INSERT INTO step_diagnostic_counts (run_id, step, split, kind, name, n)
     SELECT $1::uuid, k.step, k.split::"Split", k.kind, k.name, k.n FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::int[]) AS k(step, split, kind, name, n)
     ON CONFLICT (run_id, step, split, kind, name) DO UPDATE SET n = step_diagnostic_counts.n + excluded.n`,
    [runId, ...columns, changes.map((d) => d.n)],
  );
  await q.query(
    `DELETE FROM step_diagnostic_counts d USING unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS k(step, split, kind, name)
     WHERE d.run_id = $1::uuid AND d.step = k.step AND d.split = k.split::"Split" AND d.kind = k.kind AND d.name = k.name AND d.n = 0`,
    [runId, ...columns],
  );
}

export interface StepCountsQuery {
  from: number;
  to: number;
  split: 'train' | 'val' | null;
}

/** A run's trajectory count, flag counts and claim counts per pattern over a step range. */
export async function stepCountTotals(
  q: Queryable,
  runId: string,
  r: StepCountsQuery,
): Promise<{ trajectories: number; flags: Record<string, number>; claims: Map<string, number> }> {
  const { rows } = await q.query<{ kind: string; name: string; n: number }>(
    `SELECT kind, name, sum(n)::int AS n FROM step_diagnostic_counts
     WHERE run_id = $1::uuid AND step BETWEEN $2 AND $3 AND ($4::text IS NULL OR split::text = $4)
     GROUP BY kind, name`,
    [runId, r.from, r.to, r.split],
  );
  const out = { trajectories: 0, flags: {} as Record<string, number>, claims: new Map<string, number>() };
  for (const row of rows) {
    if (row.kind === 'trajectories') out.trajectories = row.n;
    else if (row.kind === 'flag') out.flags[row.name] = row.n;
    else out.claims.set(row.name, row.n);
  }
  return out;
}

export interface DiagnosticsSummaryQuery extends StepCountsQuery {
  /** Patterns, most frequent first. */
  limit: number;
  /** Example turns per pattern, latest step first. */
  examples: number;
}

export interface DiagnosticsSummaryData {
  trajectories: number;
  flags: Record<string, number>;
  /** The most frequent contradicted-claim patterns (claim counts), each with its latest example turns. */
  contradicted: { pattern: string; count: number; examples: Omit<ClaimExampleRow, 'pattern'>[] }[];
}

/**
 * A run's diagnostics over a step range: counts from step_diagnostic_counts (a few rows per step),
 * examples of the top patterns from the claim index. Neither read grows with the run's turns.
 */
export async function diagnosticsSummary(db: Db, runId: string, q: DiagnosticsSummaryQuery): Promise<DiagnosticsSummaryData> {
  const totals = await stepCountTotals(poolOf(db), runId, q);
  const top = [...totals.claims]
    .sort(([a, n], [b, m]) => m - n || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, q.limit)
    .map(([pattern, count]) => ({ pattern, count, examples: [] as Omit<ClaimExampleRow, 'pattern'>[] }));
  const examples = await contradictedClaimExamples(
    db,
    runId,
    top.map((t) => t.pattern),
    q,
  );
  const byPattern = new Map(top.map((t) => [t.pattern, t]));
  for (const { pattern, ...e } of examples) byPattern.get(pattern)!.examples.push(e);
  return { trajectories: totals.trajectories, flags: totals.flags, contradicted: top };
}
