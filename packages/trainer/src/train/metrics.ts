import type { FilterResult } from '../algo/filter.js';
import { mean, std } from '../algo/stats.js';
import type { Trajectory } from '../rollout/types.js';
import type { Sample } from './batch.js';

const safeMean = (xs: number[]) => (xs.length ? mean(xs) : 0);

/** Rollout metrics of a batch (RAGEN's names where they exist), prefixed by `prefix` (train / val). */
export function rolloutMetrics(trajs: Trajectory[], prefix: string): Record<string, number> {
  const out: Record<string, number> = {};
  if (!trajs.length) return out;
  const turns = trajs.flatMap((t) => t.turns);
  const rewards = trajs.map((t) => t.totalReward);
  out[`${prefix}/success`] = safeMean(trajs.map((t) => (t.success ? 1 : 0)));
  for (const env of new Set(trajs.map((t) => t.env)))
    out[`${prefix}/${env}/success`] = safeMean(trajs.filter((t) => t.env === env).map((t) => (t.success ? 1 : 0)));
  out[`${prefix}/reward/mean`] = mean(rewards);
  out[`${prefix}/reward/std`] = std(rewards);
  out[`${prefix}/reward/min`] = Math.min(...rewards);
  out[`${prefix}/reward/max`] = Math.max(...rewards);
  out[`${prefix}/well_formed_rate`] = safeMean(turns.map((t) => (t.parsed.formatOk ? 1 : 0)));
  out[`${prefix}/action_is_valid`] = safeMean(turns.map((t) => (t.parsed.formatOk && !t.parsed.penalized ? 1 : 0)));
  out[`${prefix}/action_is_effective`] = safeMean(turns.map((t) => (t.executed.length ? t.effectiveCount / t.executed.length : 0)));
  out[`${prefix}/num_actions`] = safeMean(trajs.map((t) => t.numActions));
  Object.assign(
    out,
    actionShares(
      turns.flatMap((t) => t.executed),
      prefix,
    ),
  );
  out[`${prefix}/num_turns`] = safeMean(trajs.map((t) => t.turns.length));
  // turns sampled from a prompt cut to fit the context: each is trained as a sequence of its own
  out[`${prefix}/cut_context_turns`] = turns.length ? trajs.reduce((a, t) => a + t.segmentStarts.length - 1, 0) / turns.length : 0;
  out[`${prefix}/response_length`] = safeMean(trajs.map((t) => t.turns.reduce((a, x) => a + x.responseTokens, 0)));
  out[`${prefix}/think_length`] = safeMean(turns.map((t) => t.parsed.think.length));
  const ent = turns.map((t) => t.meanEntropy).filter((x): x is number => x !== null);
  if (ent.length) out[`${prefix}/entropy`] = mean(ent);
  return out;
}

/**
 * Share of the executed actions that are each action: a policy drifting toward one action whatever
 * the board (a state-blind shortcut RL can learn from a few successes) shows here first.
 */
export function actionShares(executed: readonly string[], prefix: string): Record<string, number> {
  const counts = new Map<string, number>();
  for (const a of executed) counts.set(a, (counts.get(a) ?? 0) + 1);
  return Object.fromEntries([...counts].map(([a, n]) => [`${prefix}/action_share/${a}`, n / executed.length]));
}

/** Per-group reward statistics before the filter (RAGEN rollout/in_group_*). */
export function groupRewards(trajs: Trajectory[]): number[][] {
  const groups = new Map<number, number[]>();
  for (const t of trajs) groups.set(t.group, [...(groups.get(t.group) ?? []), t.totalReward]);
  return [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}

export function summarize(prefix: string, xs: number[]): Record<string, number> {
  if (!xs.length) return {};
  return { [`${prefix}/mean`]: mean(xs), [`${prefix}/max`]: Math.max(...xs), [`${prefix}/min`]: Math.min(...xs) };
}

/** The StarPO-S filter's view of the batch: in-group reward spread before and after selection (RAGEN rollout/*). */
export function filterMetrics(filt: FilterResult): Record<string, number> {
  const chosen = (per: number[]) => (filt.kept.length ? mean(filt.kept.map((g) => per[g]!)) : 0);
  return {
    'rollout/in_group_reward_std': mean(filt.groupStd),
    'rollout/in_group_reward_std_max': Math.max(...filt.groupStd),
    'rollout/in_group_reward_mean': mean(filt.groupMean),
    'rollout/chosen_in_group_reward_std': chosen(filt.groupStd),
    'rollout/chosen_in_group_reward_mean': chosen(filt.groupMean),
    'rollout/filter_kept_ratio': filt.keptRatio,
    'rollout/filter_zero_std_groups': filt.zeroStdGroups,
    'rollout/empty_after_filter': filt.kept.length === 0 ? 1 : 0,
  };
}

/** A per-token field of every sample, over its trained (masked) positions only. */
const masked = (samples: Sample[], field: (s: Sample) => readonly number[]) => samples.flatMap((s) => field(s).filter((_, t) => s.mask[t]));

/**
 * Advantages and returns over the trained tokens; with a critic also its values and the share
 * of the returns' variance they explain (1 − Var(R − V) / Var(R), 0 when the returns are constant).
 */
export function advantageMetrics(samples: Sample[], withValues: boolean): Record<string, number> {
  const returns = masked(samples, (s) => s.returns);
  const out: Record<string, number> = {
    ...summarize(
      'critic/advantages',
      masked(samples, (s) => s.advantages),
    ),
    ...summarize('critic/returns', returns),
  };
  if (withValues) {
    const vals = masked(samples, (s) => s.values!);
    const resid = returns.map((r, i) => r - vals[i]!);
    const varR = mean(returns.map((r) => (r - mean(returns)) ** 2));
    out['critic/vf_explained_var'] = varR > 0 ? 1 - mean(resid.map((x) => (x - mean(resid)) ** 2)) / varR : 0;
    Object.assign(out, summarize('critic/values', vals));
  }
  return out;
}

/** Per-mini-batch update statistics of a step: skipped optimizer steps are counted, the rest averaged. */
export function updateMetrics(stats: Record<string, number[]>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(stats).map(([k, v]) => [k, k.endsWith('skipped_steps') ? v.reduce((a, b) => a + b, 0) : mean(v)]),
  );
}

/** Tokens of the step's trajectories (prompts and replies) and their rate over the step's time. */
export function throughputMetrics(trajs: Trajectory[], stepSecs: number): Record<string, number> {
  const tokens = trajs.reduce((a, t) => a + t.ids.length, 0);
  return { 'perf/total_num_tokens': tokens, 'perf/tokens_per_s': tokens / stepSecs };
}
