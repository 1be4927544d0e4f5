import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { shippedBase } from '@starpo/contracts';
import { STARPO_TINY_SIZES, starpoTinyConfig, type StarpoTinySize } from '../model/config.js';
import { Qwen2Model } from '../model/qwen2.js';
import { loadModelDir, type ModelBundle } from '../model/storage.js';
import { HfTokenizer } from '../tokenizer/hf-tokenizer.js';
import { loadHfModel } from '../model/hf.js';
import { CompactTokenizer, buildCompactVocab } from '../tokenizer/compact-tokenizer.js';
import { vocabularyCorpus } from '../pretrain/corpus.js';
import { trainerSettings } from '../settings.js';
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
  const shipped = shippedBaseDir(base);
  if (shipped && !existsSync(path.join(shipped, 'model.safetensors')))
    throw new Error(`the shipped base "${base}" is missing from ${shipped}; \`npm run bases\` builds it`);
  const dir = existsSync(base) ? base : (shipped ?? resolveName?.(base));
  if (!dir || !existsSync(dir)) throw new Error(`base model "${base}" not found (a folder, a stored base model, or starpo-tiny/<size>)`);
  if (existsSync(path.join(dir, 'starpo.json'))) return loadModelDir(dir);
  return { model: loadHfModel(dir), tokenizer: HfTokenizer.fromDir(dir), meta: { kind: 'huggingface', dir } };
}

/** Where the shipped bases live: STARPO_BASES_DIR, else the repository's models/bases (this file is <repo>/packages/trainer/{src,dist}/bases/). */
export function shippedBasesDir(): string {
  return trainerSettings().STARPO_BASES_DIR ?? fileURLToPath(new URL('../../../../models/bases/', import.meta.url));
}

/** The folder of a shipped base (`starpo-base/…`), or undefined for any other name. */
export function shippedBaseDir(name: string): string | undefined {
  const b = shippedBase(name);
  return b ? path.join(shippedBasesDir(), b.folder) : undefined;
}

/** sha256 of a base folder's weights (the first 12 hex digits identify it in logs), or null for a random init. */
export function baseWeightsChecksum(dir: string | undefined): string | null {
  const file = dir ? ['model.safetensors', 'policy.safetensors'].map((f) => path.join(dir, f)).find((f) => existsSync(f)) : undefined;
  return file ? createHash('sha256').update(readFileSync(file)).digest('hex') : null;
}
