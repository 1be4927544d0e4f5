import { Template } from '@huggingface/jinja';
import type { ChatMessage } from './types.js';

/** Renders a tokenizer_config.json chat template with @huggingface/jinja (compiled once). */
export class ChatTemplate {
  private readonly template: Template;

  constructor(
    source: string,
    private readonly specials: Record<string, unknown> = {},
  ) {
    this.template = new Template(source);
  }

  render(messages: ChatMessage[], addGenerationPrompt = false): string {
    return this.template.render({ messages, add_generation_prompt: addGenerationPrompt, ...this.specials });
  }
}
