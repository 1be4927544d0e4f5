import type { Db } from '../client.js';
import { upsertMetrics } from './metrics.js';
import { updateDiagnostics } from './trajectories.js';

/** A stored trajectory as the reasoning checker reads it (snapshots as stored, unchecked). */
export interface StoredRow {
  env: string;
  success: boolean;
  finalSnapshot: unknown;
  turns: { think: string; formatOk: boolean; parsedActions: string[]; executed: string[]; effectiveCount: number; snapshot: unknown }[];
}

/** The checker of `@starpo/envs` (`diagnoseStoredRows`), passed in so this package stays free of it. */
export type BatchDiagnoser = (
  rows: StoredRow[],
  prefix: string,
) => { results: { turns: unknown[]; flags: string[] }[]; metrics: Record<string, number> };

/**
 * Re-computes the diagnostics of one (step, split) batch of a run from what is stored: turn
 * diagnostics, trajectory flags and the step's `…/diag/…` metrics. The whole batch is read,
 * because template collapse is judged across it.
 */
export async function rediagnoseStep(
  db: Db,
  runId: string,
  step: number,
  split: 'train' | 'val',
  diagnose: BatchDiagnoser,
): Promise<{ trajectories: number; hallucinated: number }> {
  const rows = await db.trajectory.findMany({
    where: { runId, step, split },
    include: { turns: { orderBy: { index: 'asc' } } },
    orderBy: [{ groupIndex: 'asc' }, { indexInGroup: 'asc' }],
  });
  const { results, metrics } = diagnose(
    rows.map((t) => ({
      env: t.environment,
      success: t.success,
      finalSnapshot: t.finalSnapshot,
      turns: t.turns.map((u) => ({
        think: u.think,
        formatOk: u.formatOk,
        parsedActions: u.parsedActions,
        executed: u.validActions,
        effectiveCount: u.effectiveCount,
        snapshot: u.stateSnapshot,
      })),
    })),
    split,
  );
  await updateDiagnostics(
    db,
    rows.map((t, k) => ({
      trajectoryId: t.id,
      hallucinated: results[k]!.flags.includes('hallucinated'),
      flags: results[k]!.flags,
      turns: t.turns.map((u, n) => ({ index: u.index, diagnostics: results[k]!.turns[n] ?? null })),
    })),
  );
  await upsertMetrics(db, runId, step, metrics);
  return { trajectories: rows.length, hallucinated: results.filter((r) => r.flags.includes('hallucinated')).length };
}
