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

export interface ClaimExamplesQuery {
  from: number;
  to: number;
  split: 'train' | 'val' | null;
  /** Example turns per pattern, latest step first. */
  examples: number;
}

export interface ClaimExampleRow {
  pattern: string;
  trajectory_id: string;
  step: number;
  split: 'train' | 'val';
  turn: number;
  text: string;
  evidence: string | null;
}

/**
 * The latest example turns of each pattern of a run in a step range, by the (run, pattern, step desc)
 * index, so the cost follows the patterns and examples asked for, not the size of the run. Rows come in
 * the order of `patterns`. (The counts per pattern come from step_diagnostic_counts.)
 */
export async function contradictedClaimExamples(
  db: Db,
  runId: string,
  patterns: string[],
  q: ClaimExamplesQuery,
): Promise<ClaimExampleRow[]> {
  if (!patterns.length) return [];
  const { rows } = await poolOf(db).query<ClaimExampleRow>(
    `SELECT p.pattern, e.trajectory_id, e.step, e.split::text AS split, e.turn, e.text, e.evidence
     FROM unnest($5::text[]) WITH ORDINALITY AS p(pattern, o) CROSS JOIN LATERAL (
       SELECT trajectory_id, step, split, turn, text, evidence FROM contradicted_claims c
       WHERE c.run_id = $1::uuid AND c.pattern = p.pattern AND c.step BETWEEN $2 AND $3 AND ($4::text IS NULL OR c.split::text = $4)
       ORDER BY c.step DESC, c.trajectory_id, c.turn LIMIT $6
     ) e
     ORDER BY p.o, e.step DESC, e.trajectory_id, e.turn`,
    [runId, q.from, q.to, q.split, patterns, q.examples],
  );
  return rows;
}
