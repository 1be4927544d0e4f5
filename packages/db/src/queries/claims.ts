import { poolOf, type Db } from '../client.js';
import { pgText } from './pg-text.js';

/**
 * `contradicted_claims` indexes the contradicted claims held in `turns.diagnostics`: one row per turn
 * and claim pattern, with the run and step copied beside it. Every writer of turn diagnostics writes
 * these rows in its own transaction, from the diagnostics it writes, so the index never disagrees with
 * the turns (and a deleted trajectory takes its rows along by cascade).
 */

/** $1: trajectory ids. Drops their rows, before re-indexing diagnostics that changed. */
export const UNINDEX_CLAIMS_SQL = `DELETE FROM contradicted_claims WHERE trajectory_id = ANY($1::uuid[])`;

export const CLAIM_INDEX_COLUMNS = ['trajectory_id', 'turn', 'pattern', 'run_id', 'step', 'split', 'claims', 'text', 'evidence'] as const;

/** A trajectory's identity in the index and its turns' diagnostics (as the checker wrote them, any shape). */
export interface ClaimSource {
  trajectoryId: string;
  step: number;
  split: string;
  turns: { index: number; diagnostics?: unknown }[];
}

interface ClaimLike {
  pattern?: unknown;
  verdict?: unknown;
  text?: unknown;
  evidence?: unknown;
}

/** The lesser of two optional texts (code-unit order), so a turn's example does not depend on claim order. */
const least = (a: string | null, b: unknown): string | null => (typeof b !== 'string' ? a : a === null || b < a ? b : a);

/**
 * The index rows (in CLAIM_INDEX_COLUMNS order) of these trajectories' contradicted claims: per turn
 * and pattern the number of claims, the least claim text ('' when none) and the least evidence.
 */
export function contradictedClaimRows(runId: string, sources: ClaimSource[]): (string | number | null)[][] {
  const rows: (string | number | null)[][] = [];
  for (const t of sources)
    for (const u of t.turns) {
      const claims = (u.diagnostics as { claims?: unknown } | null | undefined)?.claims;
      if (!Array.isArray(claims)) continue;
      const byPattern = new Map<string, { n: number; text: string | null; evidence: string | null }>();
      for (const c of claims as (ClaimLike | null)[]) {
        if (c?.verdict !== 'contradicted' || typeof c.pattern !== 'string') continue;
        // grouped as stored (NUL as ␀), so two patterns that store alike are one row of the index
        const pattern = pgText(c.pattern);
        const seen = byPattern.get(pattern) ?? { n: 0, text: null, evidence: null };
        byPattern.set(pattern, { n: seen.n + 1, text: least(seen.text, c.text), evidence: least(seen.evidence, c.evidence) });
      }
      for (const [pattern, c] of byPattern)
        rows.push([t.trajectoryId, u.index, pattern, runId, t.step, t.split, c.n, c.text ?? '', c.evidence]);
    }
  return rows;
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
