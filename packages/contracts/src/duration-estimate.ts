import { PRESET_NAMES } from './presets.js';
import type { RunConfig } from './run-config.js';
import { z } from './zod.js';

/**
 * The fixed figure used before any run of a preset was measured: seconds per 1,000 tokens of reply
 * budget, from quick-cpu's 80 steps taking 17–26 minutes on two idle CPU cores
 * (docs/results/learn-quick-cpu.md). A loaded machine or the slow engine takes longer.
 */
export const STATIC_SECONDS_PER_1K_TOKENS = 2.4;

export const durationEstimateQuerySchema = z.object({
  preset: z.enum(PRESET_NAMES),
  /** config.model.base: only runs from this base count (a bigger model takes longer a token). */
  base: z.string().max(200).optional(),
});

/**
 * GET /api/duration-estimate: what a run of the preset takes a token, measured where possible.
 * `workers`: the recent steps of this preset on the machines of the online workers; `runs`: the last
 * finished runs of the preset on the deployment; `static`: nothing measured yet, the fixed figure.
 */
export const durationEstimateSchema = z.object({
  preset: z.string(),
  source: z.enum(['workers', 'runs', 'static']),
  /** Seconds per 1,000 tokens of a training step's reply budget (envGroups × groupSize × maxNewTokens). */
  stepSecondsPer1k: z.number(),
  /** Seconds per 1,000 tokens of a validation's budget (validation.size × maxNewTokens). */
  validationSecondsPer1k: z.number(),
  /** Timed training steps behind the figure (0 for `static`). */
  steps: z.number(),
  /** Runs those steps come from. */
  runs: z.number(),
  /** Workers that ran them. */
  workers: z.array(z.string()),
  /** Online workers that run the slow engine (tfjs kernels: the OpenBLAS addon is not built). */
  slowWorkers: z.array(z.string()),
});
export type DurationEstimate = z.infer<typeof durationEstimateSchema>;

/** Validations a run makes: every `every` steps, plus one before training when asked. */
function validationCount(c: RunConfig): number {
  const v = c.rollout.validation;
  return (v.every > 0 ? Math.floor(c.training.steps / v.every) : 0) + (v.beforeTraining ? 1 : 0);
}

/** A run's duration in seconds from per-token rates: its steps' and validations' reply budgets times the rates. */
export function estimateRunSeconds(
  c: RunConfig,
  rates: Pick<DurationEstimate, 'stepSecondsPer1k' | 'validationSecondsPer1k'> = {
    stepSecondsPer1k: STATIC_SECONDS_PER_1K_TOKENS,
    validationSecondsPer1k: STATIC_SECONDS_PER_1K_TOKENS,
  },
): number {
  const r = c.rollout;
  const stepTokens = r.envGroups * r.groupSize * r.maxNewTokens;
  const validationTokens = r.validation.size * r.maxNewTokens;
  return (
    (c.training.steps * stepTokens * rates.stepSecondsPer1k + validationCount(c) * validationTokens * rates.validationSecondsPer1k) / 1000
  );
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Where the estimate comes from, in words: "from the last 3 quick-cpu runs on this deployment (240 steps)". */
export function estimateSourceText(e: DurationEstimate): string {
  if (e.source === 'workers')
    return `from ${plural(e.steps, `recent ${e.preset} step`)} on ${e.workers.length === 1 ? 'worker' : 'workers'} ${e.workers.join(', ')}`;
  if (e.source === 'runs')
    return `from the last ${e.runs === 1 ? `${e.preset} run` : `${e.runs} ${e.preset} runs`} on this deployment (${plural(e.steps, 'step')})`;
  return `rough guess: no ${e.preset} run measured yet (a fixed figure for two idle CPU cores)`;
}
