import { Rng } from '@starpo/envs';
import type { Qwen2Model } from '../model/qwen2.js';
import { PolicyResponder } from '../rollout/responder.js';
import { rollout, type RolloutSettings } from '../rollout/rollout.js';
import type { Trajectory } from '../rollout/types.js';
import type { TextTokenizer } from '../tokenizer/types.js';
import { diagnoseBatch } from './diagnose.js';
import { rolloutMetrics } from './metrics.js';
import type { ComputePool } from '../parallel/pool.js';
import type { RemoteEnvCall } from '../envs/source.js';
import { throwIfStopped } from '../util/stop.js';

export interface EvaluationRequest {
  env: string;
  envConfig: Record<string, unknown>;
  /** The environment is served over HTTP (run config `env.remote`). */
  remote?: RemoteEnvCall;
  settings: RolloutSettings;
  /** One episode per seed: seedBase, seedBase + 1, … */
  episodes: number;
  seedBase: number;
  temperature: number;
  topP: number;
  maxNewTokens: number;
  /** Seeds the sampler (validation uses seedBase + step, so each validation is reproducible). */
  samplerSeed: number;
  onTurn?: (turn: number, active: number) => void;
  /** Share the episodes with these worker threads. */
  pool?: ComputePool | null;
  /** A stop request: polled between tokens (between batches of 64 episodes with a pool); throws StopRequested. */
  signal?: AbortSignal;
}

/**
 * Validation episodes of a policy on fixed seeds (one episode per seed, as RAGEN validates):
 * the trajectories and their `val/` metrics, diagnostics included. Shared by the training loop's
 * validation and `starpo eval`.
 */
export async function evaluatePolicy(
  model: Qwen2Model,
  tokenizer: TextTokenizer,
  r: EvaluationRequest,
): Promise<{ trajectories: Trajectory[]; metrics: Record<string, number> }> {
  const sampling = { maxNewTokens: r.maxNewTokens, temperature: r.temperature, topP: r.topP, batchSize: 64 };
  const responder = new PolicyResponder(model, tokenizer, { ...sampling, signal: r.signal });
  const seeds = Array.from({ length: r.episodes }, (_, i) => r.seedBase + i);
  // one 64-row batch at a time keeps the KV cache between turns within the responder's batch size
  const trajectories: Trajectory[] = [];
  const rng = new Rng(r.samplerSeed);
  for (let i = 0; i < seeds.length; i += 64) {
    throwIfStopped(r.signal);
    const req = {
      env: r.env,
      envConfig: r.envConfig,
      remote: r.remote,
      seeds: seeds.slice(i, i + 64),
      groupSize: 1,
      split: 'val' as const,
      settings: r.settings,
    };
    const batch = r.pool
      ? await r.pool.rollout(model, tokenizer, req, sampling, rng, r.onTurn, r.signal)
      : await rollout(req, responder, tokenizer, rng, r.onTurn);
    // one episode per seed: its group is its index among all the seeds
    trajectories.push(...batch.map((t) => ({ ...t, group: i + t.group })));
  }
  return { trajectories, metrics: { ...rolloutMetrics(trajectories, 'val'), ...diagnoseBatch(trajectories, 'val') } };
}

export interface SampledEvaluation {
  /** Each metric averaged over the passes. */
  metrics: Record<string, number>;
  /** Share of seeds solved at least once: the success that sharpening the policy on these seeds could reach. */
  passAtK: number;
  solvedPerSeed: Map<number, number>;
  /** Every pass's episodes, in order. */
  trajectories: Trajectory[];
}

/** Combine k evaluations of the same seeds. */
export function combinePasses(
  passes: { trajectories: Pick<Trajectory, 'seed' | 'success'>[]; metrics: Record<string, number> }[],
): Omit<SampledEvaluation, 'trajectories'> {
  const solvedPerSeed = new Map<number, number>();
  const sums: Record<string, { total: number; n: number }> = {};
  for (const p of passes) {
    for (const t of p.trajectories) solvedPerSeed.set(t.seed, (solvedPerSeed.get(t.seed) ?? 0) + (t.success ? 1 : 0));
    // a pass may lack a metric (no claims to check, say): average over the passes that have it
    for (const [key, v] of Object.entries(p.metrics)) {
      const e = (sums[key] ??= { total: 0, n: 0 });
      e.total += v;
      e.n += 1;
    }
  }
  const metrics = Object.fromEntries(Object.entries(sums).map(([k, e]) => [k, e.total / e.n]));
  const solved = [...solvedPerSeed.values()].filter((n) => n > 0).length;
  return { metrics, passAtK: solved / Math.max(1, solvedPerSeed.size), solvedPerSeed };
}

/** `samples` evaluations of the same seeds with sampler seeds samplerSeed, samplerSeed + 1, …, combined. */
export async function evaluateSamples(
  model: Qwen2Model,
  tokenizer: TextTokenizer,
  r: EvaluationRequest,
  samples: number,
): Promise<SampledEvaluation> {
  const passes = [];
  for (let k = 0; k < samples; k++) passes.push(await evaluatePolicy(model, tokenizer, { ...r, samplerSeed: r.samplerSeed + k }));
  return { ...combinePasses(passes), trajectories: passes.flatMap((p) => p.trajectories) };
}
