import type { RunConfig } from '@starpo/contracts';

/**
 * Seconds per 1,000 reply tokens a step may generate, rollouts and update together: quick-cpu's
 * 80 steps (32 × 2 rollouts of up to 96 tokens, validations of 64 every 5 steps) took 17–26 minutes
 * on two CPU cores (docs/results/learn-quick-cpu.md), about 15 s a step.
 */
const SECONDS_PER_1K_TOKENS = 2.4;

/**
 * A rough duration for a run before it starts, from the reply tokens it may generate: enough to tell
 * minutes from days (a 100,000-step run), not a promise. The run page's ETA uses measured times.
 */
export function estimateRunSeconds(c: RunConfig): number {
  const perStep = c.rollout.envGroups * c.rollout.groupSize * c.rollout.maxNewTokens;
  const v = c.rollout.validation;
  const validations = (v.every > 0 ? Math.floor(c.training.steps / v.every) : 0) + (v.beforeTraining ? 1 : 0);
  const tokens = c.training.steps * perStep + validations * v.size * c.rollout.maxNewTokens;
  return (tokens / 1000) * SECONDS_PER_1K_TOKENS;
}
