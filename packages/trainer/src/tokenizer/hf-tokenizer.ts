import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { ChatTemplate } from './chat-template.js';
import { CHATML_TEMPLATE, type ChatMessage, type TextTokenizer } from './types.js';

/** A Hugging Face tokenizer.json (via @huggingface/tokenizers) with its chat template. */
export class HfTokenizer implements TextTokenizer {
  private readonly tok: Tokenizer;
  private readonly template: ChatTemplate;
  readonly vocabSize: number;
  readonly padId: number;
  readonly eosId: number;

  constructor(
    private readonly json: Record<string, unknown>,
    private readonly config: Record<string, unknown>,
  ) {
    this.tok = new Tokenizer(json, config);
    const tokenText = (v: unknown) => (typeof v === 'string' ? v : (v as { content?: string } | null)?.content);
    this.template = new ChatTemplate((config.chat_template as string | undefined) ?? CHATML_TEMPLATE, {
      bos_token: tokenText(config.bos_token) ?? '',
      eos_token: tokenText(config.eos_token) ?? '',
    });
    this.vocabSize = this.tok.get_vocab(true).size;
    this.eosId = this.tok.token_to_id('<|im_end|>') ?? this.tok.token_to_id(tokenText(config.eos_token) ?? '') ?? 0;
    this.padId = this.tok.token_to_id(tokenText(config.pad_token) ?? '<|endoftext|>') ?? this.eosId;
  }

  static fromDir(dir: string): HfTokenizer {
    const read = (f: string) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
    return new HfTokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  }

  encode(text: string): number[] {
    return this.tok.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[], opts: { skipSpecial?: boolean } = {}): string {
    return this.tok.decode([...ids], { skip_special_tokens: opts.skipSpecial ?? false, clean_up_tokenization_spaces: false });
  }

  tokenId(token: string): number | undefined {
    return this.tok.token_to_id(token);
  }

  applyChatTemplate(messages: ChatMessage[], opts: { addGenerationPrompt?: boolean } = {}): string {
    return this.template.render(messages, opts.addGenerationPrompt ?? false);
  }

  files(): { tokenizer: unknown; tokenizerConfig: Record<string, unknown> } {
    return { tokenizer: this.json, tokenizerConfig: this.config };
  }
}
