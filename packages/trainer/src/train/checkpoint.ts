import * as tf from '@tensorflow/tfjs';
import type { RunConfig } from '@starpo/contracts';
import type { EarlyStopper } from '../algo/early-stop.js';
import type { Qwen2Model } from '../model/qwen2.js';
import { parseSafetensors, serializeSafetensors } from '../model/safetensors.js';
import { modelFiles, type ModelBundle } from '../model/storage.js';
import type { AdamW } from './optimizer.js';
import type { LearningWatch } from './warnings.js';

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

/** A run's state besides its weights (state.json): what a resumed run continues from. */
export interface SavedState {
  step: number;
  rng: number[];
  stopper: EarlyStopper['state'];
  watch?: LearningWatch['state'];
  reuse: { seedsStep: number } | null;
  /** The step's validation was cut short by a stop: a resumed run runs it first. */
  pendingValidation?: boolean;
}

/** The models and optimizers a training checkpoint holds; critic and reference only when the run has them. */
export interface Learners {
  policy: Qwen2Model;
  critic: Qwen2Model | null;
  ref: Qwen2Model | null;
  actorOpt: AdamW;
  criticOpt: AdamW | null;
}

/**
 * The files of a training checkpoint: the policy as a loadable model folder (its weights as
 * policy.safetensors), the critic, reference and optimizer states, state.json and the run config.
 */
export async function checkpointFiles(
  l: Learners,
  base: Pick<ModelBundle, 'tokenizer' | 'meta'>,
  config: RunConfig,
  state: SavedState,
): Promise<Map<string, Uint8Array>> {
  const files = await modelFiles(l.policy, base.tokenizer, { ...base.meta, step: state.step });
  files.set('policy.safetensors', await weightsFile(l.policy));
  files.delete('model.safetensors');
  if (l.critic) files.set('critic.safetensors', await weightsFile(l.critic));
  if (l.ref) files.set('reference.safetensors', await weightsFile(l.ref));
  files.set('actor-optimizer.safetensors', await optimizerFile(l.actorOpt));
  if (l.criticOpt) files.set('critic-optimizer.safetensors', await optimizerFile(l.criticOpt));
  files.set('state.json', enc(state));
  files.set('run-config.json', enc(config));
  return files;
}

/** Load a checkpoint's weights and optimizer states into `l`; returns its saved state. */
export async function restoreCheckpoint(l: Learners, files: Map<string, Uint8Array>): Promise<SavedState> {
  restoreWeights(l.policy, files.get('policy.safetensors')!);
  if (l.critic) restoreWeights(l.critic, files.get('critic.safetensors')!);
  if (l.ref && files.has('reference.safetensors')) restoreWeights(l.ref, files.get('reference.safetensors')!);
  await restoreOptimizer(l.actorOpt, files.get('actor-optimizer.safetensors')!);
  if (l.criticOpt) await restoreOptimizer(l.criticOpt, files.get('critic-optimizer.safetensors')!);
  return dec<SavedState>(files.get('state.json')!);
}
