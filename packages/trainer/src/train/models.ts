import { existsSync } from 'node:fs';
import { STARPO_TINY_SIZES, starpoTinyConfig, type StarpoTinySize } from '../model/config.js';
import { Qwen2Model } from '../model/qwen2.js';
import { loadModelDir, type ModelBundle } from '../model/storage.js';
import { HfTokenizer } from '../tokenizer/hf-tokenizer.js';
import { loadHfModel } from '../model/hf.js';
import { CompactTokenizer, buildCompactVocab } from '../tokenizer/compact-tokenizer.js';
import { vocabularyCorpus } from '../pretrain/corpus.js';
import path from 'node:path';

/**
 * Resolve `model.base`: `starpo-tiny/<size>` (random init, compact tokenizer), or a folder with a
 * saved base model / Hugging Face checkpoint. `resolveName` maps stored base-model names to folders.
 */
export function loadBaseModel(base: string, seed: number, resolveName?: (name: string) => string | undefined): ModelBundle {
  const tiny = /^starpo-tiny\/(\w+)$/.exec(base);
  if (tiny) {
    const size = tiny[1] as StarpoTinySize;
    if (!(STARPO_TINY_SIZES as readonly string[]).includes(size))
      throw new Error(`unknown starpo-tiny size "${size}" (${STARPO_TINY_SIZES.join(', ')})`);
    const tokenizer = new CompactTokenizer(buildCompactVocab(vocabularyCorpus()));
    return {
      model: Qwen2Model.init(starpoTinyConfig(size, tokenizer.vocabSize), { seed }),
      tokenizer,
      meta: { kind: 'starpo-tiny', size, scratch: true },
    };
  }
  const dir = existsSync(base) ? base : resolveName?.(base);
  if (!dir || !existsSync(dir)) throw new Error(`base model "${base}" not found (a folder, a stored base model, or starpo-tiny/<size>)`);
  if (existsSync(path.join(dir, 'starpo.json'))) return loadModelDir(dir);
  return { model: loadHfModel(dir), tokenizer: HfTokenizer.fromDir(dir), meta: { kind: 'huggingface', dir } };
}
