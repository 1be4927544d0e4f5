import { publishRunNotice, rediagnoseStep, type Db } from '@starpo/db';
import { diagnoseStoredRows } from '@starpo/trainer';

export interface RediagnoseResult {
  batches: number;
  trajectories: number;
  hallucinated: number;
}

/**
 * Re-computes the reasoning diagnostics of every stored trajectory of a run, one (step, split)
 * batch at a time: turn diagnostics, trajectory flags and the `…/diag/…` metrics of each step.
 * Run it after the checker in `@starpo/envs` improved. Turns without a drawable snapshot (an
 * external run's text the server could not read) stay unchecked.
 */
export async function rediagnoseRun(db: Db, runId: string, onBatch?: (done: number, total: number) => void): Promise<RediagnoseResult> {
  const batches = await db.trajectory.groupBy({ by: ['step', 'split'], where: { runId }, orderBy: [{ step: 'asc' }, { split: 'asc' }] });
  const result: RediagnoseResult = { batches: batches.length, trajectories: 0, hallucinated: 0 };
  for (const [i, { step, split }] of batches.entries()) {
    const r = await rediagnoseStep(db, runId, step, split, diagnoseStoredRows);
    result.trajectories += r.trajectories;
    result.hallucinated += r.hallucinated;
    onBatch?.(i + 1, batches.length);
  }
  await publishRunNotice(db, { run: runId, type: 'metrics', step: batches.at(-1)?.step ?? 0, from: 0 }).catch(() => {});
  return result;
}
