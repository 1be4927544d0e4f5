import type { Env, Rng } from '@starpo/envs';
import type { Qwen2Model } from '../model/qwen2.js';
import { generate } from '../policy/generate.js';
import type { TextTokenizer } from '../tokenizer/types.js';

export interface ReplyRequest {
  promptIds: number[];
  env: Env;
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
}

export interface SamplingSettings {
  maxNewTokens: number;
  temperature: number;
  topP: number;
  /** Generate at most this many prompts at once. */
  batchSize?: number;
}

/** The language-model policy as a responder: batched sampling, stopping at `</answer>`. */
export class PolicyResponder implements Responder {
  constructor(
    private readonly model: Qwen2Model,
    private readonly tokenizer: TextTokenizer,
    private readonly sampling: SamplingSettings,
  ) {}

  async respond(requests: ReplyRequest[], rng: Rng): Promise<Reply[]> {
    const out: Reply[] = [];
    const size = this.sampling.batchSize ?? 64;
    for (let i = 0; i < requests.length; i += size) {
      const chunk = requests.slice(i, i + size);
      const gens = await generate(
        this.model,
        this.tokenizer,
        chunk.map((r) => r.promptIds),
        {
          maxNewTokens: this.sampling.maxNewTokens,
          temperature: this.sampling.temperature,
          topP: this.sampling.topP,
          stopStrings: ['</answer>'],
        },
        rng,
      );
      for (const g of gens) out.push({ text: g.text, tokenCount: g.ids.length, logProbs: g.logProbs, entropies: g.entropies });
    }
    return out;
  }
}
