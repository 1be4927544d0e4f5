import { poolOf, type Db } from '../client.js';

/**
 * `contradicted_claims` indexes the contradicted claims held in `turns.diagnostics`: one row per turn
 * and claim pattern, with the run and step copied beside it. Every writer of turn diagnostics runs
 * these statements in its own transaction, with the ids of the trajectories it wrote, so the index
 * never disagrees with the turns (and a deleted trajectory takes its rows along by cascade).
 */

/** $1: trajectory ids. Drops their rows, before re-indexing diagnostics that changed. */
export const UNINDEX_CLAIMS_SQL = `DELETE FROM contradicted_claims WHERE trajectory_id = ANY($1::uuid[])`;

/** $1: trajectory ids. Indexes the contradicted claims of their stored turns. */
export const INDEX_CLAIMS_SQL = `
  INSERT INTO contradicted_claims (trajectory_id, turn, pattern, run_id, step, split, claims, text, evidence)
  SELECT u.trajectory_id, u.index, c->>'pattern', t.run_id, t.step, t.split, count(*), coalesce(min(c->>'text'), ''), min(c->>'evidence')
  FROM turns u
  JOIN trajectories t ON t.id = u.trajectory_id
  CROSS JOIN LATERAL jsonb_array_elements(
    CASE WHEN jsonb_typeof(u.diagnostics->'claims') = 'array' THEN u.diagnostics->'claims' ELSE '[]'::jsonb END) AS c
  WHERE u.trajectory_id = ANY($1::uuid[]) AND c->>'verdict' = 'contradicted' AND c->>'pattern' IS NOT NULL
  GROUP BY u.trajectory_id, u.index, c->>'pattern', t.run_id, t.step, t.split`;

/** Whether a turn's diagnostics hold a contradicted claim, so its trajectory has rows to index. */
export function hasContradictedClaim(diagnostics: unknown): boolean {
  const claims = (diagnostics as { claims?: unknown } | null | undefined)?.claims;
  return Array.isArray(claims) && claims.some((c) => (c as { verdict?: unknown } | null)?.verdict === 'contradicted');
}

export interface ClaimSummaryQuery {
  from: number;
  to: number;
  split: 'train' | 'val' | null;
  /** Patterns, most frequent first. */
  limit: number;
  /** Example turns per pattern, latest step first. */
  examples: number;
}

export interface ClaimSummaryRow {
  pattern: string;
  /** Contradicted claims of this pattern in the range. */
  n: number;
  trajectory_id: string;
  step: number;
  split: 'train' | 'val';
  turn: number;
  text: string;
  evidence: string | null;
}

/**
 * The most frequent contradicted-claim patterns of a run in a step range, each with its latest example
 * turns: counts from the (run, step) index, examples from the (run, pattern, step desc) index, so the
 * cost follows the patterns and examples asked for, not the size of the tables.
 */
export async function contradictedClaimSummary(db: Db, runId: string, q: ClaimSummaryQuery): Promise<ClaimSummaryRow[]> {
  const { rows } = await poolOf(db).query<ClaimSummaryRow>(
    `WITH top AS (
       SELECT pattern, sum(claims)::int AS n FROM contradicted_claims
       WHERE run_id = $1::uuid AND step BETWEEN $2 AND $3 AND ($4::text IS NULL OR split::text = $4)
       GROUP BY pattern ORDER BY n DESC, pattern LIMIT $5
     )
     SELECT top.pattern, top.n, e.trajectory_id, e.step, e.split::text AS split, e.turn, e.text, e.evidence
     FROM top CROSS JOIN LATERAL (
       SELECT trajectory_id, step, split, turn, text, evidence FROM contradicted_claims c
       WHERE c.run_id = $1::uuid AND c.pattern = top.pattern AND c.step BETWEEN $2 AND $3 AND ($4::text IS NULL OR c.split::text = $4)
       ORDER BY c.step DESC, c.trajectory_id, c.turn LIMIT $6
     ) e
     ORDER BY top.n DESC, top.pattern, e.step DESC, e.trajectory_id, e.turn`,
    [runId, q.from, q.to, q.split, q.limit, q.examples],
  );
  return rows;
}
