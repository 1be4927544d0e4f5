// starpo-tiny's compact tokenizer. Hand-written rather than a trained BPE: a fixed vocabulary with
// longest-match lookup guarantees every board symbol is exactly one token (a 6×6 Sokoban
// observation is 41 tokens), which BPE merges would not.
import { ChatTemplate } from './chat-template.js';
import { CHATML_TEMPLATE, type ChatMessage, type TextTokenizer } from './types.js';

export const SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<think>', '</think>', '<answer>', '</answer>'] as const;
const EXTRA_CHARS = [' || ', '\n', '\t', '√', '✓', '→', '←', '↑', '↓', '×', '–', '—', '’', '“', '”'];
// Words are lower-case or Capitalised runs; upper-case runs (board rows such as "XP") stay single letters.
const PIECE = /<\|[a-z_]+\|>|<\/?(?:think|answer)>| \|\| | ?[A-Z]?[a-z]+| ?\d|\s|[^\s]/gsu;

export interface CompactTokenizerJson {
  type: 'starpo-compact';
  version: 1;
  tokens: string[];
}

/** Build the vocabulary: specials, printable ASCII and common symbols, 256 byte tokens, then frequent words. */
export function buildCompactVocab(corpus: Iterable<string>, maxWords = 1200, minCount = 2): string[] {
  const counts = new Map<string, number>();
  for (const text of corpus) {
    for (const m of text.matchAll(PIECE)) {
      const p = m[0];
      if (/^ ?[A-Z]?[a-z]+$/.test(p) && p.trim().length >= 2) counts.set(p, (counts.get(p) ?? 0) + 1);
    }
  }
  const words = [...counts.entries()]
    .filter(([, n]) => n >= minCount)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, maxWords)
    .map(([w]) => w)
    .sort();
  const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
  const spaced = Array.from({ length: 10 }, (_, i) => ` ${i}`);
  const bytes = Array.from({ length: 256 }, (_, i) => `<0x${i.toString(16).toUpperCase().padStart(2, '0')}>`);
  return [...SPECIAL_TOKENS, ...ascii, ...spaced, ...EXTRA_CHARS, ...bytes, ...words];
}

export class CompactTokenizer implements TextTokenizer {
  private readonly index = new Map<string, number>();
  private readonly template = new ChatTemplate(CHATML_TEMPLATE);
  readonly vocabSize: number;
  readonly padId = 0;
  readonly eosId = 2;

  constructor(readonly tokens: string[]) {
    tokens.forEach((t, i) => this.index.set(t, i));
    this.vocabSize = tokens.length;
    if (tokens[0] !== '<|endoftext|>' || tokens[2] !== '<|im_end|>')
      throw new Error('compact vocabulary must start with the special tokens');
  }

  static fromJson(json: CompactTokenizerJson): CompactTokenizer {
    if (json.type !== 'starpo-compact') throw new Error(`not a compact tokenizer: ${String(json.type)}`);
    return new CompactTokenizer(json.tokens);
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    for (const m of text.matchAll(PIECE)) {
      const piece = m[0];
      const id = this.index.get(piece);
      if (id !== undefined) {
        ids.push(id);
        continue;
      }
      for (const ch of piece) {
        const cid = this.index.get(ch);
        if (cid !== undefined) ids.push(cid);
        else
          for (const byte of new TextEncoder().encode(ch))
            ids.push(this.index.get(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`)!);
      }
    }
    return ids;
  }

  decode(ids: readonly number[], opts: { skipSpecial?: boolean } = {}): string {
    let out = '';
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length) out += new TextDecoder().decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const id of ids) {
      const t = this.tokens[id];
      if (t === undefined) continue;
      if (t.length === 6 && t.startsWith('<0x') && t.endsWith('>')) {
        bytes.push(parseInt(t.slice(3, 5), 16));
        continue;
      }
      flush();
      if (opts.skipSpecial && (SPECIAL_TOKENS as readonly string[]).includes(t) && t.startsWith('<|')) continue;
      out += t;
    }
    flush();
    return out;
  }

  tokenId(token: string): number | undefined {
    return this.index.get(token);
  }

  applyChatTemplate(messages: ChatMessage[], opts: { addGenerationPrompt?: boolean } = {}): string {
    return this.template.render(messages, opts.addGenerationPrompt ?? false);
  }

  files(): { tokenizer: CompactTokenizerJson; tokenizerConfig: Record<string, unknown> } {
    return {
      tokenizer: { type: 'starpo-compact', version: 1, tokens: this.tokens },
      tokenizerConfig: {
        tokenizer_class: 'StarpoCompactTokenizer',
        eos_token: '<|im_end|>',
        pad_token: '<|endoftext|>',
        chat_template: CHATML_TEMPLATE,
      },
    };
  }
}
