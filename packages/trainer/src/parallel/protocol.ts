import type { BackendName } from '../backend.js';
import type { Qwen2Config } from '../model/config.js';
import type { SamplingSettings } from '../rollout/responder.js';
import type { RolloutRequest } from '../rollout/rollout.js';
import type { ActorLossSettings } from '../train/actor-rows.js';

/** What a compute worker starts from: the policy's architecture, tokenizer and weights. */
export interface WorkerInit {
  backend: BackendName;
  config: Qwen2Config;
  tokenizer: unknown;
  tokenizerConfig: Record<string, unknown>;
  weights: { name: string; shape: number[]; data: Float32Array }[];
  /** One Int32, the pool's stop count: a rollout stops between tokens once it differs from the count it started with. */
  stop: SharedArrayBuffer;
}

/** A trainable row as it crosses the thread boundary (a Sample without its trajectory). */
export interface WireRow {
  ids: number[];
  mask: number[];
  oldLogProbs: number[];
  advantages: number[];
  refLogProbs: number[] | null;
  fullTokens: number;
}

export type WorkerRequest =
  | { kind: 'ping' }
  /** New weights, in the order of the model's trainable variables. */
  | { kind: 'weights'; data: Float32Array[] }
  | {
      kind: 'grads';
      rows: WireRow[];
      settings: ActorLossSettings;
      padId: number;
      maxTokens: number;
      microBatchSize: number;
      stopCount: number;
    }
  | { kind: 'rollout'; req: RolloutRequest; sampling: SamplingSettings; rngSeed: number; stopCount: number }
  /** `masks`: each row's target-space loss mask where known (only those positions are then scored). */
  | { kind: 'score'; ids: number[][]; masks: (number[] | null)[]; padId: number; maxTokens: number; temperature: number };

export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string; stack?: string };
