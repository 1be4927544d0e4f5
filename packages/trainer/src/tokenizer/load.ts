import { CompactTokenizer, type CompactTokenizerJson } from './compact-tokenizer.js';
import { HfTokenizer } from './hf-tokenizer.js';
import type { TextTokenizer } from './types.js';

/** Recreate a tokenizer from its saved files (compact or Hugging Face). */
export function tokenizerFromFiles(tokenizer: unknown, tokenizerConfig: Record<string, unknown>): TextTokenizer {
  if ((tokenizer as { type?: string }).type === 'starpo-compact') return CompactTokenizer.fromJson(tokenizer as CompactTokenizerJson);
  return new HfTokenizer(tokenizer as Record<string, unknown>, tokenizerConfig);
}
