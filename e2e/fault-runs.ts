import type { Db } from '@starpo/db';
import { expect } from 'vitest';

/** A run of a few seconds a step: Bandit, the nano model, 2 groups × 4, a checkpoint every step. */
export const smallRun = (steps: number, over: Record<string, unknown> = {}) => ({
  preset: 'quick-cpu',
  config: {
    env: { name: 'bandit' },
    model: { base: 'starpo-tiny/nano' },
    rollout: { envGroups: 2, groupSize: 4, maxNewTokens: 8, validation: { size: 4, every: 2 } },
    ppo: { miniBatchSize: 4, microBatchSize: 4 },
    training: { steps, checkpointEvery: 1 },
    earlyStopping: { enabled: false }, // an untrained nano model would trip the low-success rule
    ...over,
  },
});

/**
 * What every fault case ends with, read from Postgres: each training step 1..steps has its
 * `train/success` point once and 8 training trajectories; a step's training points come from one
 * lease and its validation points from one lease; leases never go back from one step to the next
 * (no two owners interleaving). Returns the leases seen, in order.
 */
export async function expectStepsOnceFromOneLease(db: Db, id: string, steps: number, trajectoriesPerStep = 8): Promise<number[]> {
  const perStep = await db.$queryRawUnsafe<{ step: number; n: number; leases: number; lease: number }[]>(
    // a validation cut short by a stop is run by the next lease: its points (val/ and its timing) may be younger than the step's training points
    `SELECT step, count(*) FILTER (WHERE key = 'train/success')::int AS n, min(lease) AS lease,
            greatest(count(DISTINCT lease) FILTER (WHERE key NOT LIKE 'val/%' AND key <> 'timing_s/testing'),
                     count(DISTINCT lease) FILTER (WHERE key LIKE 'val/%' OR key = 'timing_s/testing'))::int AS leases
     FROM metric_points WHERE run_id = $1::uuid AND step > 0 GROUP BY step ORDER BY step`,
    id,
  );
  expect(perStep.map((r) => r.step)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
  expect(
    perStep.every((r) => r.n === 1 && r.leases === 1),
    JSON.stringify(perStep),
  ).toBe(true);
  const leases = perStep.map((r) => r.lease);
  expect(leases).toEqual([...leases].sort((a, b) => a - b));
  const trajs = await db.$queryRawUnsafe<{ step: number; n: number }[]>(
    `SELECT step, count(*)::int AS n FROM trajectories WHERE run_id = $1::uuid AND split = 'train' GROUP BY step ORDER BY step`,
    id,
  );
  expect(trajs).toEqual(Array.from({ length: steps }, (_, i) => ({ step: i + 1, n: trajectoriesPerStep })));
  return [...new Set(leases)];
}
