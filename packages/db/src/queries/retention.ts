import { CHECKPOINT_COMPLETE_FILE } from '@starpo/contracts';
import type { Db } from '../client.js';
import { lockRuns, refreshStepCounts } from './step-counts.js';
import { inTransaction } from './trajectories.js';

/** What to keep of a run; a part left out is not touched. Metrics are never pruned. */
export interface RetentionPolicy {
  checkpoints?: {
    /** Newest complete checkpoint steps kept (at least 1: resume and the archive read the latest). */
    keepLast: number;
    /** Complete steps with the highest `metric` at their step kept as well. */
    keepBest: number;
    metric: string;
  };
  trajectories?: {
    /** Training steps, counted back from the run's newest stored one, whose trajectories stay. */
    keepLastSteps: number;
    /** Keep every validation trajectory. */
    keepValidation: boolean;
  };
}

export interface PruneResult {
  checkpoints: { keptSteps: number[]; deletedSteps: number[]; files: number; bytes: number };
  trajectories: { deleted: number; turns: number; keptFromStep: number | null };
}

/** Trajectories deleted per statement, so each stays well inside the API's statement timeout. */
const DELETE_BATCH = 2000;

/**
 * Delete what `policy` does not keep of a run; with `dryRun` only count it. Deletes go in batches
 * (each atomic, the whole idempotent: an interrupted prune is finished by running it again).
 * Checkpoint steps newer than the newest complete one are being written and always stay, and so
 * do trajectories a teammate gave a claim verdict on (the verdict is a person's judgment).
 */
export async function pruneRun(db: Db, runId: string, policy: RetentionPolicy, dryRun = false): Promise<PruneResult> {
  const result: PruneResult = {
    checkpoints: { keptSteps: [], deletedSteps: [], files: 0, bytes: 0 },
    trajectories: { deleted: 0, turns: 0, keptFromStep: null },
  };
  if (policy.checkpoints) {
    const { keepLast, keepBest, metric } = policy.checkpoints;
    // complete steps newest first, each with the metric's value at its step (null when not logged)
    const complete = await db.$queryRawUnsafe<{ step: number; score: number | null }[]>(
      `SELECT c.step, p.value AS score FROM checkpoints c
         LEFT JOIN metric_points p ON p.run_id = c.run_id AND p.key = $3 AND p.bucket = c.step >> 6 AND p.step = c.step
         WHERE c.run_id = $1::uuid AND c.kind = $2 ORDER BY c.step DESC`,
      runId,
      CHECKPOINT_COMPLETE_FILE,
      metric,
    );
    if (complete.length) {
      const best = complete
        .filter((c) => c.score !== null)
        .sort((a, b) => b.score! - a.score! || b.step - a.step)
        .slice(0, keepBest);
      const kept = new Set([...complete.slice(0, keepLast), ...best].map((c) => c.step));
      const newest = complete[0]!.step;
      const doomed = await db.$queryRawUnsafe<{ step: number; files: number; bytes: bigint }[]>(
        `SELECT step, count(*)::int AS files, sum(size_bytes)::bigint AS bytes FROM checkpoints
           WHERE run_id = $1::uuid AND step <= $2 AND NOT (step = ANY($3::int[])) GROUP BY step ORDER BY step`,
        runId,
        newest,
        [...kept],
      );
      result.checkpoints = {
        keptSteps: [...kept].sort((a, b) => b - a),
        deletedSteps: doomed.map((d) => d.step),
        files: doomed.reduce((n, d) => n + d.files, 0),
        bytes: doomed.reduce((n, d) => n + Number(d.bytes), 0),
      };
      // a step at a time: its files and their chunks (foreign key, on delete cascade) go together
      if (!dryRun)
        for (const d of doomed) await db.$executeRawUnsafe(`DELETE FROM checkpoints WHERE run_id = $1::uuid AND step = $2`, runId, d.step);
    }
  }
  if (policy.trajectories) {
    const { keepLastSteps, keepValidation } = policy.trajectories;
    const [top] = await db.$queryRawUnsafe<{ step: number | null }[]>(
      `SELECT max(step) AS step FROM trajectories WHERE run_id = $1::uuid AND split = 'train'`,
      runId,
    );
    if (top?.step !== null && top?.step !== undefined) {
      const from = top.step - keepLastSteps + 1;
      const doomed = `FROM trajectories t WHERE t.run_id = $1::uuid AND t.step < $2
            AND ($3::boolean IS FALSE OR t.split = 'train')
            AND NOT EXISTS (SELECT 1 FROM claim_verdicts v WHERE v.trajectory_id = t.id)`;
      const [counted] = await db.$queryRawUnsafe<{ n: number; turns: number }[]>(
        `SELECT count(*)::int AS n, coalesce(sum(t.num_turns), 0)::int AS turns ${doomed}`,
        runId,
        from,
        keepValidation,
      );
      result.trajectories = { deleted: counted!.n, turns: counted!.turns, keptFromStep: from };
      // turns and claim rows go with their trajectory (foreign key, on delete cascade); each batch
      // recounts the steps it emptied in the same transaction
      if (!dryRun)
        while (
          await inTransaction(db, async (client) => {
            await lockRuns(client, [runId]);
            const { rows } = await client.query<{ step: number }>(
              `WITH gone AS (DELETE FROM trajectories WHERE id IN (SELECT t.id ${doomed} LIMIT ${DELETE_BATCH}) RETURNING step)
               SELECT DISTINCT step FROM gone`,
              [runId, from, keepValidation],
            );
            const steps = rows.map((r) => r.step);
            await refreshStepCounts(
              client,
              steps.map(() => runId),
              steps,
            );
            return steps.length;
          })
        );
    }
  }
  return result;
}
