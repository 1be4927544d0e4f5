export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What the policy needs from a tokenizer, whichever kind it is. */
export interface TextTokenizer {
  readonly vocabSize: number;
  readonly padId: number;
  /** End of a chat turn (`<|im_end|>`). */
  readonly eosId: number;
  encode(text: string): number[];
  decode(ids: readonly number[], opts?: { skipSpecial?: boolean }): string;
  tokenId(token: string): number | undefined;
  applyChatTemplate(messages: ChatMessage[], opts?: { addGenerationPrompt?: boolean }): string;
  /** The files that recreate it: tokenizer.json and tokenizer_config.json contents. */
  files(): { tokenizer: unknown; tokenizerConfig: Record<string, unknown> };
}

/** ChatML, as Qwen uses it. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
