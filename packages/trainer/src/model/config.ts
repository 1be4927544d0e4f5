import type { StarpoTinySize } from '@starpo/contracts';

/** Architecture of a Qwen2-style decoder (field names follow Hugging Face's config.json). */
export interface Qwen2Config {
  vocab_size: number;
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim?: number;
  rope_theta: number;
  rms_norm_eps: number;
  tie_word_embeddings: boolean;
  max_position_embeddings: number;
  /** Std of the normal initialisation of weight matrices (Hugging Face's default: 0.02). */
  initializer_range?: number;
}

/** Read a Hugging Face config.json (transformers 4.x and 5.x spell rope_theta differently). */
export function qwen2ConfigFromHf(raw: Record<string, unknown>): Qwen2Config {
  const rope = (raw.rope_parameters as { rope_theta?: number } | undefined)?.rope_theta ?? (raw.rope_theta as number | undefined) ?? 10000;
  const cfg: Qwen2Config = {
    vocab_size: raw.vocab_size as number,
    hidden_size: raw.hidden_size as number,
    intermediate_size: raw.intermediate_size as number,
    num_hidden_layers: raw.num_hidden_layers as number,
    num_attention_heads: raw.num_attention_heads as number,
    num_key_value_heads: (raw.num_key_value_heads as number | undefined) ?? (raw.num_attention_heads as number),
    rope_theta: rope,
    rms_norm_eps: (raw.rms_norm_eps as number | undefined) ?? 1e-6,
    tie_word_embeddings: (raw.tie_word_embeddings as boolean | undefined) ?? false,
    max_position_embeddings: (raw.max_position_embeddings as number | undefined) ?? 32768,
  };
  if (typeof raw.head_dim === 'number') cfg.head_dim = raw.head_dim;
  if (typeof raw.initializer_range === 'number') cfg.initializer_range = raw.initializer_range;
  return cfg;
}

export function headDim(c: Qwen2Config): number {
  return c.head_dim ?? c.hidden_size / c.num_attention_heads;
}

export function countParams(c: Qwen2Config): number {
  const hd = headDim(c);
  const attn =
    c.hidden_size * c.num_attention_heads * hd * 2 +
    c.hidden_size * c.num_key_value_heads * hd * 2 +
    (c.num_attention_heads + 2 * c.num_key_value_heads) * hd;
  const mlp = 3 * c.hidden_size * c.intermediate_size;
  const perLayer = attn + mlp + 2 * c.hidden_size;
  return c.vocab_size * c.hidden_size * (c.tie_word_embeddings ? 1 : 2) + c.num_hidden_layers * perLayer + c.hidden_size;
}

// the sizes' names are a contract (the API offers them); their shapes are the trainer's
export { STARPO_TINY_SIZES, type StarpoTinySize } from '@starpo/contracts';

/** starpo-tiny: the Qwen2 architecture at sizes that train on a CPU. vocab_size is set from the tokenizer. */
export function starpoTinyConfig(size: StarpoTinySize, vocabSize: number): Qwen2Config {
  // hidden, layers, heads, key-value heads, intermediate: one shape for each size contracts names
  const dims: Record<StarpoTinySize, [number, number, number, number, number]> = {
    nano: [64, 2, 4, 2, 192],
    tiny: [96, 3, 4, 2, 256],
    small: [128, 4, 4, 2, 384],
  };
  const [hidden, layers, heads, kv, inter] = dims[size];
  return {
    vocab_size: vocabSize,
    hidden_size: hidden,
    intermediate_size: inter,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kv,
    rope_theta: 10000,
    rms_norm_eps: 1e-6,
    tie_word_embeddings: true,
    max_position_embeddings: 4096,
    // 0.02 suits hidden sizes of 768 and up; at 96 it leaves attention logits near zero, and SFT stalled on a
    // plateau where attention stayed uniform: no token was copied from the prompt (docs/results/pretrain-sokoban-tiny.md).
    initializer_range: Number((1 / Math.sqrt(hidden)).toFixed(4)),
  };
}

/** The shape of Qwen2.5-0.5B (random weights): what the GPU check measures against PyTorch's throughput. */
export function qwen25HalfBConfig(): Qwen2Config {
  return {
    vocab_size: 151936,
    hidden_size: 896,
    intermediate_size: 4864,
    num_hidden_layers: 24,
    num_attention_heads: 14,
    num_key_value_heads: 2,
    rope_theta: 1000000,
    rms_norm_eps: 1e-6,
    tie_word_embeddings: true,
    max_position_embeddings: 32768,
  };
}

/**
 * Multiply-adds ×2 of one token's forward pass that attends to `context` keys: every weight matrix
 * (the head included, the embedding lookup not) plus the q·kᵀ and p·v products. A training token
 * costs about 3× this (forward, and a backward twice as heavy).
 */
export function forwardFlopsPerToken(c: Qwen2Config, context: number): number {
  const hd = headDim(c);
  const weights = countParams(c) - c.vocab_size * c.hidden_size * (c.tie_word_embeddings ? 0 : 1);
  return 2 * weights + 4 * c.num_hidden_layers * c.num_attention_heads * hd * context;
}
