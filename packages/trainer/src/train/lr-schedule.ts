import type { RunConfig } from '@starpo/contracts';

export interface LrSchedule {
  type: RunConfig['ppo']['lrSchedule']['type'];
  /** Steps of linear warm-up from 0 (0 = none). */
  warmupSteps: number;
  /** The rate at the end of the decay, as a share of the peak. */
  minRatio: number;
  /** Steps over which the rate decays; it stays at minRatio × peak after them. */
  horizon: number;
}

/**
 * Learning rate of 1-based step `step`: linear warm-up to `peak` over `warmupSteps`, then a
 * linear or cosine decay to `minRatio × peak` at step `horizon`. A pure function of the step, so a
 * resumed run continues on the same schedule.
 */
export function learningRateAt(peak: number, step: number, s: LrSchedule): number {
  const warm = s.warmupSteps > 0 ? Math.min(1, step / s.warmupSteps) : 1;
  if (s.type === 'constant') return peak * warm;
  const span = Math.max(1, s.horizon - s.warmupSteps);
  const progress = Math.min(1, Math.max(0, (step - s.warmupSteps) / span));
  const shape = s.type === 'linear' ? 1 - progress : 0.5 * (1 + Math.cos(Math.PI * progress));
  return peak * warm * (s.minRatio + (1 - s.minRatio) * shape);
}
