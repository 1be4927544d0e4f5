import type { AdamW } from './optimizer.js';
import type { Qwen2Model } from '../model/qwen2.js';
import { parseSafetensors, serializeSafetensors } from '../model/safetensors.js';
import * as tf from '@tensorflow/tfjs';

const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2));
const dec = <T>(b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as T;

export async function optimizerFile(opt: AdamW): Promise<Uint8Array> {
  const state = await opt.getState();
  const map = new Map(state.map((s, i) => [`${String(i).padStart(5, '0')}`, { shape: s.shape, data: s.data }]));
  return serializeSafetensors(map, { names: JSON.stringify(state.map((s) => s.name)) });
}

export async function restoreOptimizer(opt: AdamW, bytes: Uint8Array): Promise<void> {
  const { tensors, metadata } = parseSafetensors(bytes);
  const names = JSON.parse(metadata.names ?? '[]') as string[];
  const keys = [...tensors.keys()].sort();
  await opt.setState(
    keys.map((k, i) => ({ name: names[i] ?? k, shape: tensors.get(k)!.shape, data: tensors.get(k)!.data as Float32Array })),
  );
}

export async function weightsFile(model: Qwen2Model): Promise<Uint8Array> {
  return serializeSafetensors(await model.exportTensors(), { format: 'pt' });
}

/** Overwrite a model's weights from a safetensors file. */
export function restoreWeights(model: Qwen2Model, bytes: Uint8Array): void {
  const { tensors } = parseSafetensors(bytes);
  for (const [name, v] of model.weights) {
    const t = tensors.get(name);
    if (!t) throw new Error(`checkpoint lacks ${name}`);
    tf.tidy(() => v.assign(tf.tensor(t.data as Float32Array, t.shape)));
  }
}

export { enc as jsonFile, dec as parseJsonFile };
