import type { EnvSnapshot } from '@starpo/envs';

/** An environment's first state at a seed, as `GET /api/envs/:name/preview` answers it. */
export interface EnvPreview {
  observation: string;
  instructions: string;
  actions: readonly string[];
  snapshot: EnvSnapshot;
}

/** One preview for the generation thread: the config already validated by the environment's schema. */
export interface PreviewJob {
  name: string;
  seed: number;
  config: Record<string, unknown>;
}

/** The thread's answer: the preview, or why not (`setting`: the config value whose budget ran out). */
export type PreviewReply = { ok: true; preview: EnvPreview } | { ok: false; message: string; setting: string | null };

/** What the thread posts: `ready` once its modules are loaded (a job's time limit starts after), then one reply per job. */
export type ThreadMessage = { ready: true } | PreviewReply;
