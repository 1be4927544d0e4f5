import type { Rng } from '@starpo/envs';
import type { EpisodeEnv } from '../envs/source.js';
import type { Qwen2Model } from '../model/qwen2.js';
import { disposePrefix, generateCached, type Continuation, type PrefixCache } from '../policy/generate.js';
import type { TextTokenizer } from '../tokenizer/types.js';

export interface ReplyRequest {
  promptIds: number[];
  env: EpisodeEnv;
  turn: number;
  actionsLeft: number;
}

export interface Reply {
  /** Generated text after the prefilled tag. */
  text: string;
  tokenCount: number;
  logProbs?: number[];
  entropies?: number[];
}

/** Whatever writes the assistant's replies: the language-model policy or a scripted teacher. */
export interface Responder {
  respond(requests: ReplyRequest[], rng: Rng): Promise<Reply[]>;
  /** The rollout is over: release what was kept between turns. */
  end?(): void;
}

export interface SamplingSettings {
  maxNewTokens: number;
  temperature: number;
  topP: number;
  /** Generate at most this many prompts at once. */
  batchSize?: number;
  /** Keep each conversation's KV cache between turns (default true; needs all requests in one batch). */
  reuseCache?: boolean;
  /** A stop request, polled between tokens (StopRequested is thrown). Not for worker threads: it cannot be cloned. */
  signal?: AbortSignal;
}

/** The language-model policy as a responder: batched sampling, stopping at `</answer>`. */
export class PolicyResponder implements Responder {
  constructor(
    private readonly model: Qwen2Model,
    private readonly tokenizer: TextTokenizer,
    private readonly sampling: SamplingSettings,
  ) {}

  /** The KV cache of the last turn's batch, and which environment (conversation) each row is. */
  private session: { prefix: PrefixCache; rows: Map<object, number> } | null = null;

  async respond(requests: ReplyRequest[], rng: Rng): Promise<Reply[]> {
    const out: Reply[] = [];
    const size = this.sampling.batchSize ?? 64;
    const opts = {
      maxNewTokens: this.sampling.maxNewTokens,
      temperature: this.sampling.temperature,
      topP: this.sampling.topP,
      stopStrings: ['</answer>'],
      signal: this.sampling.signal,
    };
    const keep = (this.sampling.reuseCache ?? true) && requests.length <= size;
    let from: Continuation | undefined;
    const last = this.session;
    if (keep && last) {
      const rows = requests.map((r) => last.rows.get(r.env));
      if (rows.every((x) => x !== undefined)) from = { prefix: last.prefix, rows: rows as number[] };
    }
    this.session = null;
    try {
      for (let i = 0; i < requests.length; i += size) {
        const chunk = requests.slice(i, i + size);
        const { generations, next } = await generateCached(
          this.model,
          this.tokenizer,
          chunk.map((r) => r.promptIds),
          opts,
          rng,
          from,
        );
        if (keep && next) this.session = { prefix: next, rows: new Map(chunk.map((r, k) => [r.env, k])) };
        else disposePrefix(next);
        for (const g of generations) out.push({ text: g.text, tokenCount: g.ids.length, logProbs: g.logProbs, entropies: g.entropies });
      }
    } finally {
      if (last) disposePrefix(last.prefix);
    }
    return out;
  }

  end(): void {
    if (this.session) disposePrefix(this.session.prefix);
    this.session = null;
  }
}
