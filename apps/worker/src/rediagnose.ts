import { publishRunNotice, updateDiagnostics, upsertMetrics, type Db } from '@starpo/db';
import { diagnoseStoredBatch, type StoredTrajectory } from '@starpo/trainer';

export interface RediagnoseResult {
  batches: number;
  trajectories: number;
  hallucinated: number;
}

/**
 * Re-computes the reasoning diagnostics of every stored trajectory of a run, one (step, split)
 * batch at a time: turn diagnostics, trajectory flags and the `…/diag/…` metrics of each step.
 * Run it after the checker in `@starpo/envs` improved; it works on external runs whose turns
 * carry environment snapshots too.
 */
export async function rediagnoseRun(db: Db, runId: string, onBatch?: (done: number, total: number) => void): Promise<RediagnoseResult> {
  const batches = await db.trajectory.groupBy({ by: ['step', 'split'], where: { runId }, orderBy: [{ step: 'asc' }, { split: 'asc' }] });
  const result: RediagnoseResult = { batches: batches.length, trajectories: 0, hallucinated: 0 };
  for (const [i, { step, split }] of batches.entries()) {
    const rows = await db.trajectory.findMany({
      where: { runId, step, split },
      include: { turns: { orderBy: { index: 'asc' } } },
      orderBy: [{ groupIndex: 'asc' }, { indexInGroup: 'asc' }],
    });
    const stored: StoredTrajectory[] = rows.map((t) => ({
      env: t.environment,
      success: t.success,
      finalSnapshot: (t.finalSnapshot ?? null) as StoredTrajectory['finalSnapshot'],
      turns: t.turns.map((u) => ({
        think: u.think,
        formatOk: u.formatOk,
        parsedActions: u.parsedActions,
        executed: u.validActions,
        effectiveCount: u.effectiveCount,
        snapshot: u.stateSnapshot as unknown as StoredTrajectory['turns'][number]['snapshot'],
      })),
    }));
    const { results, metrics } = diagnoseStoredBatch(stored, split);
    await updateDiagnostics(
      db,
      rows.map((t, k) => ({
        trajectoryId: t.id,
        hallucinated: results[k]!.flags.includes('hallucinated'),
        flags: results[k]!.flags,
        turns: t.turns.map((u, n) => ({ index: u.index, diagnostics: results[k]!.turns[n] })),
      })),
    );
    await upsertMetrics(db, runId, step, metrics);
    result.trajectories += rows.length;
    result.hallucinated += results.filter((r) => r.flags.includes('hallucinated')).length;
    onBatch?.(i + 1, batches.length);
  }
  await publishRunNotice(db, { run: runId, type: 'metrics', step: batches.at(-1)?.step ?? 0, from: 0 }).catch(() => {});
  return result;
}
