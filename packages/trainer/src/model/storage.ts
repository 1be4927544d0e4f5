import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tokenizerFromFiles } from '../tokenizer/load.js';
import type { TextTokenizer } from '../tokenizer/types.js';
import type { Qwen2Config } from './config.js';
import { readCheckpointTensors, readHfConfig } from './hf.js';
import { Qwen2Model } from './qwen2.js';
import { readSafetensors, serializeSafetensors } from './safetensors.js';

/** A base model folder (or a training checkpoint, whose weights are policy.safetensors): Hugging Face layout (config.json, model.safetensors, tokenizer files) plus starpo.json. */
export interface ModelBundle {
  model: Qwen2Model;
  tokenizer: TextTokenizer;
  meta: Record<string, unknown>;
}

export async function modelFiles(
  model: Qwen2Model,
  tokenizer: TextTokenizer,
  meta: Record<string, unknown> = {},
): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2));
  files.set('config.json', enc({ architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', ...model.config }));
  files.set('model.safetensors', serializeSafetensors(await model.exportTensors(), { format: 'pt' }));
  const t = tokenizer.files();
  files.set('tokenizer.json', enc(t.tokenizer));
  files.set('tokenizer_config.json', enc(t.tokenizerConfig));
  files.set('starpo.json', enc(meta));
  return files;
}

export async function saveModelDir(
  dir: string,
  model: Qwen2Model,
  tokenizer: TextTokenizer,
  meta: Record<string, unknown> = {},
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of await modelFiles(model, tokenizer, meta)) writeFileSync(path.join(dir, name), bytes);
}

export function loadModelDir(dir: string, opts: { valueHead?: boolean } = {}): ModelBundle {
  const read = (f: string) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
  const config: Qwen2Config = readHfConfig(dir);
  // a training checkpoint keeps the policy's weights as policy.safetensors
  const policy = path.join(dir, 'policy.safetensors');
  const tensors =
    existsSync(policy) && !existsSync(path.join(dir, 'model.safetensors')) ? readSafetensors(policy).tensors : readCheckpointTensors(dir);
  const model = Qwen2Model.fromTensors(config, tensors, opts);
  const tokenizer = tokenizerFromFiles(read('tokenizer.json'), read('tokenizer_config.json'));
  const meta = existsSync(path.join(dir, 'starpo.json')) ? read('starpo.json') : {};
  return { model, tokenizer, meta };
}
