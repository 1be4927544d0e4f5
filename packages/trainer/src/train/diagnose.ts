import {
  diagnoseTurn,
  diagnosticsMetrics,
  markTemplates,
  trajectoryFlags,
  type DiagnosticFlag,
  type EnvSnapshot,
  type StepTurn,
  type TurnDiagnostics,
} from '@starpo/envs';
import type { Trajectory } from '../rollout/types.js';

/** Arm names count as moves in the bandit's think text ("I choose Dragon"). */
function actionWords(s: EnvSnapshot): string[] {
  return s.env === 'bandit' ? s.arms.map((a) => a.name) : [];
}

/** A trajectory as stored (database rows, JSONL export): what the checks need of it. */
export interface StoredTrajectory {
  env: string;
  success: boolean;
  finalSnapshot: EnvSnapshot | null;
  turns: {
    think: string;
    formatOk: boolean;
    parsedActions: string[];
    /** Actions the environment executed (stored rows: the valid ones; the trajectory cap only ever cuts a last turn short). */
    executed: string[];
    effectiveCount: number;
    snapshot: EnvSnapshot;
  }[];
}

export interface StoredDiagnosis {
  turns: TurnDiagnostics[];
  flags: DiagnosticFlag[];
}

/**
 * Runs the reasoning checks of `@starpo/envs` on every turn of one step's batch (one split): each
 * turn's diagnostics, each trajectory's flags, and the batch's `${prefix}/diag/…` metrics.
 * Template collapse is judged across the whole batch.
 */
export function diagnoseStoredBatch(
  trajs: StoredTrajectory[],
  prefix: string,
): { results: StoredDiagnosis[]; metrics: Record<string, number> } {
  const stepTurns: StepTurn[] = [];
  const turns = trajs.map((t) =>
    t.turns.map((turn, i) => {
      const d = diagnoseTurn({
        env: t.env,
        think: turn.think,
        formatOk: turn.formatOk,
        answerActions: turn.parsedActions,
        executed: turn.executed,
        effectiveCount: turn.effectiveCount,
        before: turn.snapshot,
        after: t.turns[i + 1]?.snapshot ?? t.finalSnapshot,
        actionWords: actionWords(turn.snapshot),
      });
      if (turn.formatOk) stepTurns.push({ think: turn.think, state: turn.snapshot, diagnostics: d });
      return d;
    }),
  );
  const distinct = markTemplates(stepTurns);
  const diagnosed = trajs.map((t, i) => ({ success: t.success, turns: turns[i]! }));
  const flags = diagnosed.map(trajectoryFlags);
  return {
    results: diagnosed.map((d, i) => ({ turns: d.turns, flags: flags[i]! })),
    metrics: diagnosticsMetrics(diagnosed, distinct, prefix, flags),
  };
}

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
    t.turns.forEach((x, k) => (x.diagnostics = results[i]!.turns[k]));
  });
  return metrics;
}
