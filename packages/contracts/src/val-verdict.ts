import { z } from './zod.js';

/** What a run's validations say about the change from its first to its last one. */
export const VAL_VERDICTS = ['improved', 'no_clear_change', 'got_worse'] as const;
export type ValVerdictCode = (typeof VAL_VERDICTS)[number];
export const VAL_VERDICT_LABELS: Record<ValVerdictCode, string> = {
  improved: 'improved',
  no_clear_change: 'no clear change',
  got_worse: 'got worse',
};

/** How the verdict is reached, in one line (the dashboard's tooltip and the docs say the same). */
export const VAL_VERDICT_METHOD =
  'last − first validation success against its noise, 2 × √(p₁(1−p₁)/n₁ + p₂(1−p₂)/n₂) with p = (successes + 1)/(episodes + 2): a two-proportion test at about 95%';

/** Why the best validation is shown but not judged. */
export const BEST_VAL_CAVEAT =
  'the highest of several noisy validations reads high by chance, so the verdict compares the first and the last';

export const valVerdictSchema = z.object({
  /** Null when there is nothing to judge; `reason` says why. */
  verdict: z.enum(VAL_VERDICTS).nullable(),
  /** Last − first validation success. */
  change: z.number().nullable(),
  /** The change two validations of one unchanged policy could show by chance (2 standard errors). */
  noise: z.number().nullable(),
  reason: z.string().nullable(),
});
export type ValVerdict = z.infer<typeof valVerdictSchema>;

/** One validation: the step it ran at and its success rate (val/success). */
export interface ValPoint {
  step: number;
  value: number;
}

const none = (reason: string): ValVerdict => ({ verdict: null, change: null, noise: null, reason });

/**
 * Judges the change from the first validation to the last against the noise of two evaluations of
 * `episodes` episodes each. The best validation is deliberately not an input: see BEST_VAL_CAVEAT.
 */
export function valVerdict(
  first: ValPoint | null | undefined,
  last: ValPoint | null | undefined,
  episodes: number | null | undefined,
): ValVerdict {
  if (!first || !last) return none('no validation was logged');
  if (last.step <= first.step) return none(`only one validation (step ${first.step}): nothing to compare it with`);
  if (!episodes || !Number.isInteger(episodes) || episodes < 1) return none('the number of episodes per validation is unknown');
  if ([first.value, last.value].some((v) => !(v >= 0 && v <= 1))) return none('val/success is not a share between 0 and 1');
  // (x + 1)/(n + 2) keeps 0% and 100% from claiming zero noise
  const variance = (p: number) => {
    const q = (p * episodes + 1) / (episodes + 2);
    return (q * (1 - q)) / episodes;
  };
  const change = last.value - first.value;
  const noise = 2 * Math.sqrt(variance(first.value) + variance(last.value));
  const verdict = change > noise ? 'improved' : change < -noise ? 'got_worse' : 'no_clear_change';
  return { verdict, change, noise, reason: null };
}

/** Episodes per validation from a run's config (`rollout.validation.size`); null when it has none (a run trained elsewhere may not). */
export function valEpisodes(config: unknown): number | null {
  const size = (config as { rollout?: { validation?: { size?: unknown } } } | null)?.rollout?.validation?.size;
  return typeof size === 'number' && Number.isInteger(size) && size > 0 ? size : null;
}
