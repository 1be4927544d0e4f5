import { engineSchema } from './engine.js';
import { z } from './zod.js';

/**
 * What a worker is doing on a run, live: the phase, its progress and the measured times the ETA uses.
 * The worker stores it on the run; the API returns it with the run, the dashboard draws it.
 */
export const RUN_PHASES = ['loading', 'validation', 'rollout', 'scoring', 'advantages', 'update', 'checkpoint'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];

export const runProgressSchema = z.object({
  phase: z.enum(RUN_PHASES),
  /** The training step the phase belongs to (0: before the first step). */
  step: z.number(),
  done: z.number(),
  total: z.number(),
  /** What `done` counts: episodes, mini-batches, … */
  unit: z.string(),
  /** Epoch ms the phase began. */
  startedAt: z.number(),
  /** Epoch ms of this update. */
  at: z.number(),
  /** Epoch ms the current training step began (its rollout), null outside a step. */
  stepStartedAt: z.number().nullable(),
  /** Mean seconds of the run's recent training steps, without validation (null before the first). */
  stepSeconds: z.number().nullable(),
  /** Seconds of the last validation (null before the first). */
  validationSeconds: z.number().nullable(),
  /** The worker's engine (ENGINES); the ETA says "slow engine" for `tfjs`. Absent in progress stored before it was reported. */
  engine: engineSchema.optional(),
});
export type RunProgress = z.infer<typeof runProgressSchema>;

/** "validation 23/64 episodes" */
export function progressLabel(p: Pick<RunProgress, 'phase' | 'done' | 'total' | 'unit'>): string {
  return p.total > 0 ? `${p.phase} ${p.done}/${p.total} ${p.unit}` : p.phase;
}

/** Training steps after `step` that end with a validation (every `every` steps, and the last step always). */
export function validationsAfter(step: number, totalSteps: number, every: number): number {
  if (every <= 0 || step >= totalSteps) return 0;
  const scheduled = Math.floor(totalSteps / every) - Math.floor(step / every);
  return scheduled + (totalSteps % every === 0 ? 0 : 1);
}

/**
 * Seconds left, from the measured step and validation times: the steps still to run, the validations
 * still due, less what the current phase has already spent. Null until a step has been timed.
 */
export function estimateRemainingSeconds(o: {
  currentStep: number;
  totalSteps: number;
  validationEvery: number;
  progress: RunProgress | null;
  now: number;
}): number | null {
  const p = o.progress;
  if (!p || p.stepSeconds === null) return null;
  const val = p.validationSeconds ?? 0;
  const stepsLeft = Math.max(0, o.totalSteps - o.currentStep);
  let left = stepsLeft * p.stepSeconds + validationsAfter(o.currentStep, o.totalSteps, o.validationEvery) * val;
  if (p.phase === 'validation' && p.step === o.currentStep) {
    // the validation that follows the step already counted: only its rest is left
    left += Math.max(0, val - (o.now - p.startedAt) / 1000);
  } else if (p.stepStartedAt !== null && p.step > o.currentStep) {
    left -= Math.min(p.stepSeconds, Math.max(0, (o.now - p.stepStartedAt) / 1000));
  }
  return Math.max(0, left);
}

/** Warnings a run raises when its training signal is missing; each message names the likely cause and what to change. */
export const RUN_WARNING_CODES = [
  'no_well_formed_replies',
  'zero_grad_norm',
  'no_reward_variance',
  'action_collapse',
  'reward_variance_falling',
  'entropy_collapse',
  'empty_filtered_batches',
  'low_validation_success',
] as const;
export type RunWarningCode = (typeof RUN_WARNING_CODES)[number];

/**
 * The metric each warning reads, which its message names and the run page links to its chart, so the
 * warning and the chart show the same numbers. `train/action_share` stands for its per-action keys.
 */
export const WARNING_METRICS: Record<RunWarningCode, string> = {
  no_well_formed_replies: 'train/well_formed_rate',
  zero_grad_norm: 'actor/grad_norm',
  no_reward_variance: 'rollout/in_group_reward_std_max',
  action_collapse: 'train/action_share',
  reward_variance_falling: 'rollout/in_group_reward_std',
  entropy_collapse: 'actor/entropy',
  empty_filtered_batches: 'rollout/empty_after_filter',
  low_validation_success: 'val/success',
};

export interface RunWarning {
  code: RunWarningCode;
  step: number;
  message: string;
}
