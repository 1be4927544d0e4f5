import { diagnoseStoredBatch, type TurnDiagnostics } from '@starpo/envs';
import type { Trajectory } from '../rollout/types.js';

export { diagnoseStoredBatch, diagnoseStoredRows, type StoredTrajectory, type StoredDiagnosis } from '@starpo/envs';

/** `diagnoseStoredBatch` on a fresh rollout: fills in `turn.diagnostics` and `trajectory.flags`, returns the metrics. */
export function diagnoseBatch(trajs: Trajectory[], prefix: string): Record<string, number> {
  const { results, metrics } = diagnoseStoredBatch(
    trajs.map((t) => ({
      env: t.env,
      success: t.success,
      finalSnapshot: t.finalSnapshot,
      turns: t.turns.map((x) => ({ ...x.parsed, executed: x.executed, effectiveCount: x.effectiveCount, snapshot: x.snapshot })),
    })),
    prefix,
  );
  trajs.forEach((t, i) => {
    t.flags = results[i]!.flags;
    // Every rollout turn has a snapshot, so every turn is diagnosed.
    t.turns.forEach((x, k) => (x.diagnostics = results[i]!.turns[k] as TurnDiagnostics));
  });
  return metrics;
}
