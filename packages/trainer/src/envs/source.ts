import pLimit from 'p-limit';
import { getEnvDefinition, ProtocolEpisode, type EnvDescription, type Env, type StepResult } from '@starpo/envs';
import { HttpEnvironment } from './http-env.js';

/** What the rollout drives: a built-in `Env`, or an episode of a protocol environment whose calls may be asynchronous. */
export type EpisodeEnv = Omit<Env, 'reset' | 'step' | 'restore'> & {
  reset(seed: number, stream?: number): string | Promise<string>;
  step(action: string): StepResult | Promise<StepResult>;
  /** The episode is over for the trainer (a protocol environment is told, so it can free it). */
  close?(): void;
};

/** A run's environment served over HTTP, and how its calls are made (run config `env.remote`, url resolved). */
export interface RemoteEnvCall {
  url: string;
  timeoutMs: number;
  retries: number;
  /** fail-run: the first failed call ends the run with its error; fail-episode: the episode ends as a failure. */
  onError: 'fail-run' | 'fail-episode';
  /** Calls in flight at once. */
  concurrency: number;
}

export interface EnvSource {
  legend: string | null;
  /** The environment's own rollout limits (a remote one's description), which the run's cannot exceed. */
  limits: { maxTurns: number; maxActionsPerTurn: number; maxActionsPerTraj: number } | null;
  create(): EpisodeEnv;
  /** Runs `calls` with at most the environment's concurrency in flight. */
  all<T>(calls: (() => T | Promise<T>)[]): Promise<T[]>;
  /** A failed call ends only its episode (remote, onError fail-episode). */
  failEpisode: boolean;
}

// one description per address and process: every rollout of a run reads the same
const descriptions = new Map<string, Promise<EnvDescription>>();

function describe(client: HttpEnvironment, url: string): Promise<EnvDescription> {
  let d = descriptions.get(url);
  if (!d) {
    d = client.describe();
    descriptions.set(url, d);
    d.catch(() => descriptions.delete(url)); // a failed describe is asked again next time
  }
  return d;
}

/** The episodes of a rollout: the registered environment `env`, or the protocol environment at `remote.url`. */
export async function openEnvSource(env: string, config: Record<string, unknown>, remote?: RemoteEnvCall): Promise<EnvSource> {
  if (!remote) {
    const def = getEnvDefinition(env);
    return {
      legend: def.legend,
      limits: null,
      create: () => def.create(config),
      all: (calls) => Promise.all(calls.map((c) => c())),
      failEpisode: false,
    };
  }
  const client = new HttpEnvironment(remote.url, remote);
  const description = await describe(client, remote.url);
  const limit = pLimit(remote.concurrency);
  return {
    legend: description.legend,
    limits: description.limits,
    create: () => new ProtocolEpisode(client, description, config),
    all: (calls) => Promise.all(calls.map((c) => limit(async () => c()))),
    failEpisode: remote.onError === 'fail-episode',
  };
}

/** The rollout call settings of a run's `env.remote` once its address is known. */
export function remoteCall(
  remote: { url?: string; timeoutMs: number; retries: number; onError: RemoteEnvCall['onError']; concurrency: number } | undefined,
): RemoteEnvCall | undefined {
  if (!remote) return undefined;
  if (!remote.url) throw new Error('env.remote.command must be started (startEnvServer) before the rollout');
  return {
    url: remote.url,
    timeoutMs: remote.timeoutMs,
    retries: remote.retries,
    onError: remote.onError,
    concurrency: remote.concurrency,
  };
}
