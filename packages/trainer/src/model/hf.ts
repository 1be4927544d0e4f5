import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { qwen2ConfigFromHf, type Qwen2Config } from './config.js';
import { Qwen2Model } from './qwen2.js';
import { readSafetensors, type TensorData } from './safetensors.js';

/** Read model.safetensors, or every shard listed in model.safetensors.index.json. */
export function readCheckpointTensors(dir: string): Map<string, TensorData> {
  const single = path.join(dir, 'model.safetensors');
  if (existsSync(single)) return readSafetensors(single).tensors;
  const indexFile = path.join(dir, 'model.safetensors.index.json');
  if (!existsSync(indexFile)) throw new Error(`${dir} has neither model.safetensors nor model.safetensors.index.json`);
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { weight_map: Record<string, string> };
  const out = new Map<string, TensorData>();
  for (const shard of new Set(Object.values(index.weight_map))) {
    for (const [name, t] of readSafetensors(path.join(dir, shard)).tensors) out.set(name, t);
  }
  return out;
}

export function readHfConfig(dir: string): Qwen2Config {
  return qwen2ConfigFromHf(JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>);
}

/** Load a Hugging Face Qwen2 checkpoint folder (config.json + safetensors, float32/bf16, sharded or not). */
export function loadHfModel(dir: string, opts: { valueHead?: boolean } = {}): Qwen2Model {
  return Qwen2Model.fromTensors(readHfConfig(dir), readCheckpointTensors(dir), opts);
}
