import * as tf from '@tensorflow/tfjs';
import { PRETRAIN_DEFAULTS as CONTRACT_PRETRAIN_DEFAULTS, buildRunConfig, type PretrainEnv } from '@starpo/contracts';
import { BUILTIN_ENV_NAMES, Rng } from '@starpo/envs';
import { countParams, starpoTinyConfig, type StarpoTinySize } from '../model/config.js';
import { Qwen2Model } from '../model/qwen2.js';
import { saveModelDir, type ModelBundle } from '../model/storage.js';
import { PolicyResponder } from '../rollout/responder.js';
import { segmentRanges } from '../rollout/segments.js';
import { rollout, type RolloutSettings } from '../rollout/rollout.js';
import type { Trajectory } from '../rollout/types.js';
import { rolloutSettings } from '../rollout/settings.js';
import { CompactTokenizer, buildCompactVocab } from '../tokenizer/compact-tokenizer.js';
import { vocabularyCorpus } from './corpus.js';
import { loadBaseModel } from '../bases/load.js';
import { labelVisitedStates } from '../train/distill.js';
import { throwIfStopped } from '../util/stop.js';
import { yieldToEventLoop } from '../util/yield.js';

import { supervisedTrain, type SftProgress } from './sft.js';
import { TeacherResponder } from './teacher.js';

export type { PretrainEnv } from '@starpo/contracts';

/** Episodes per environment the model plays in each on-policy round. */
const DAGGER_EPISODES = 2000;

export interface PretrainOptions {
  env: PretrainEnv;
  size: StarpoTinySize;
  out: string;
  /** Teacher dialogues per environment. */
  dialogues: number;
  epochs: number;
  batchSize: number;
  microBatchTokens: number;
  lr: number;
  randomActionShare: number;
  valSize: number;
  seed: number;
  /** Sokoban's config for teacher dialogues and validation (default: the quick-cpu preset's, grid_coord). */
  envConfig?: Record<string, unknown>;
  /**
   * A base model folder (or name) to continue from instead of random weights: more imitation of the same
   * teacher, the baseline every RL run is judged against at equal CPU time. Its size and tokenizer win.
   */
  init?: string;
  /**
   * On-policy rounds after the cloning (DAgger): the model plays `daggerEpisodes` fresh episodes per
   * environment, the teacher labels every state it visited, and it trains one pass on those labels.
   * Teacher dialogues never show a garbled earlier reply or a state off the teacher's path; these do.
   */
  daggerRounds?: number;
  daggerEpisodes?: number;
  /**
   * A stop request (cancel, shutdown, lost lease): polled between rollout chunks, between optimizer
   * steps and, in generation, between tokens; StopRequested is thrown and nothing is saved.
   */
  signal?: AbortSignal;
}

/** The defaults live in the contracts, shared with `POST /api/base-models`. */
export const PRETRAIN_DEFAULTS: Omit<PretrainOptions, 'env' | 'out'> = CONTRACT_PRETRAIN_DEFAULTS;

export interface PretrainEvents {
  phase?: (name: string, total?: number) => void;
  progress?: (done: number, info?: Record<string, number | string>) => void;
  log?: (msg: string) => void;
}

export interface PretrainResult {
  params: number;
  vocabSize: number;
  examples: number;
  finalLoss: number;
  /** Share of validation replies that parsed (`<think>…</think><answer>…</answer>`). */
  formatRate: number;
  /** Share of validation replies that were well-formed with only valid actions. */
  validReplyRate: number;
  /** Validation success (seeds 123+i, temperature 0.5), per environment. */
  success: Record<string, number>;
  teacherSuccess: Record<string, number>;
  seconds: number;
}

/** Rollout settings of the quick-cpu preset for an environment: the format the base model will be trained in by RL. */
export function rolloutSettingsFor(env: string): RolloutSettings {
  return rolloutSettings(buildRunConfig('quick-cpu', { env: { name: env } }));
}

/** The environment config a base is pretrained on: the quick-cpu preset's, with `extra` settings on top (one environment, not mixed). */
export function pretrainEnvConfig(env: string, extra?: Record<string, unknown>): Record<string, unknown> {
  return buildRunConfig('quick-cpu', { env: env !== 'mixed' && extra ? { name: env, config: extra } : { name: env } }).env.config;
}

export function replyStats(trajs: Trajectory[]): { formatRate: number; validReplyRate: number; success: number } {
  const turns = trajs.flatMap((t) => t.turns);
  return {
    formatRate: turns.filter((t) => t.parsed.formatOk).length / Math.max(1, turns.length),
    validReplyRate: turns.filter((t) => t.parsed.formatOk && !t.parsed.penalized).length / Math.max(1, turns.length),
    success: trajs.filter((t) => t.success).length / Math.max(1, trajs.length),
  };
}

/**
 * Warm start for starpo-tiny: supervised training on dialogues a scripted teacher plays in the
 * exact rollout format, then validation of the learned policy. Saves a base model folder.
 */
export async function pretrain(o: PretrainOptions, ev: PretrainEvents = {}): Promise<PretrainResult> {
  const t0 = performance.now();
  const start = o.init ? loadBaseModel(o.init, o.seed) : null;
  if (start && start.meta.kind !== 'starpo-tiny') throw new Error(`--init needs a starpo-tiny base, not ${String(start.meta.kind)}`);
  const tokenizer = start?.tokenizer ?? new CompactTokenizer(buildCompactVocab(vocabularyCorpus()));
  const model = start?.model ?? Qwen2Model.init(starpoTinyConfig(o.size, tokenizer.vocabSize), { seed: o.seed });
  try {
    return await pretrainModel(o, ev, { model, tokenizer, start, t0 });
  } finally {
    model.dispose(); // a stopped pretrain too: a worker lives on to take the next job
  }
}

/** The phases of `pretrain` on its model: teacher dialogues, supervised training, on-policy rounds, validation, saving. */
async function pretrainModel(
  o: PretrainOptions,
  ev: PretrainEvents,
  { model, tokenizer, start, t0 }: { model: Qwen2Model; tokenizer: ModelBundle['tokenizer']; start: ModelBundle | null; t0: number },
): Promise<PretrainResult> {
  const { signal } = o;
  const envs = o.env === 'mixed' ? [...BUILTIN_ENV_NAMES] : [o.env];
  const size = (start?.meta.size as StarpoTinySize | undefined) ?? o.size;
  const rng = new Rng(o.seed);
  const teacher = new TeacherResponder({ maxActionsPerTurn: 5, randomActionShare: o.randomActionShare });
  await yieldToEventLoop(); // building the vocabulary and the model held it for a moment

  ev.phase?.('teacher dialogues', o.dialogues * envs.length);
  const data: { ids: number[]; lossMask: number[] }[] = [];
  const teacherSuccess: Record<string, number> = {};
  for (const env of envs) {
    const envConfig = pretrainEnvConfig(env, o.envConfig);
    const seeds = Array.from({ length: o.dialogues }, (_, i) => 1_000_000 + o.seed * 100_000 + i);
    const trajs: Trajectory[] = [];
    for (let i = 0; i < seeds.length; i += 100) {
      trajs.push(
        ...(await rollout(
          {
            env,
            envConfig,
            seeds: seeds.slice(i, i + 100),
            groupSize: 1,
            split: 'train',
            settings: rolloutSettingsFor(env),
          },
          teacher,
          tokenizer,
          rng,
        )),
      );
      ev.progress?.(data.length + trajs.length);
      await yieldToEventLoop(); // the teacher's turns never leave the event loop on their own
      throwIfStopped(signal);
    }
    if (trajs.length) teacherSuccess[env] = replyStats(trajs).success; // no dialogues (an on-policy round only): no teacher score
    data.push(...trajs.flatMap((t) => segmentRanges(t).map(([a, b]) => ({ ids: t.ids.slice(a, b), lossMask: t.lossMask.slice(a, b) }))));
  }
  const tokens = data.reduce((a, d) => a + d.ids.length, 0);
  ev.log?.(
    `${data.length} dialogues, ${tokens} tokens (mean ${Math.round(tokens / Math.max(1, data.length))}), model ${countParams(model.config)} parameters, vocabulary ${tokenizer.vocabSize}`,
  );

  ev.phase?.('supervised training', Math.ceil(data.length / o.batchSize) * o.epochs);
  const sft = {
    epochs: o.epochs,
    batchSize: o.batchSize,
    microBatchTokens: o.microBatchTokens,
    lr: o.lr,
    weightDecay: 0.01,
    maxGradNorm: 1,
  };
  const onStep = (p: SftProgress) => ev.progress?.(p.step, { loss: p.loss.toFixed(3), 'tok/s': Math.round(p.tokensPerSecond) });
  let { finalLoss } = await supervisedTrain(model, data, sft, tokenizer.padId, rng, onStep, signal);

  for (let round = 1; round <= (o.daggerRounds ?? 0); round++) {
    const episodes = o.daggerEpisodes ?? DAGGER_EPISODES;
    ev.phase?.(`on-policy round ${round}: episodes`, episodes * envs.length);
    const labelled: { ids: number[]; lossMask: number[] }[] = [];
    const player = new PolicyResponder(model, tokenizer, { maxNewTokens: 96, temperature: 0.5, topP: 1, batchSize: 64, signal });
    for (const env of envs) {
      const envConfig = pretrainEnvConfig(env, o.envConfig);
      const settings = rolloutSettingsFor(env);
      // seeds apart from the teacher's dialogues and from validation (123…)
      const seeds = Array.from({ length: episodes }, (_, i) => 5_000_000 + o.seed * 100_000 + round * 10_000 + i);
      for (let i = 0; i < seeds.length; i += 64) {
        const req = { env, envConfig, seeds: seeds.slice(i, i + 64), groupSize: 1, split: 'train' as const, settings };
        const trajs = await rollout(req, player, tokenizer, rng);
        labelled.push(...labelVisitedStates(trajs, { name: env, config: envConfig }, settings, tokenizer, rng).examples);
        ev.progress?.(Math.min(seeds.length, i + 64));
        await yieldToEventLoop();
        throwIfStopped(signal);
      }
    }
    ev.log?.(`on-policy round ${round}: ${labelled.length} visited states labelled by the teacher`);
    ev.phase?.(`on-policy round ${round}: training`, Math.ceil(labelled.length / o.batchSize));
    ({ finalLoss } = await supervisedTrain(model, labelled, { ...sft, epochs: 1 }, tokenizer.padId, rng, onStep, signal));
  }

  ev.phase?.('validation', o.valSize * envs.length);
  const success: Record<string, number> = {};
  const all: Trajectory[] = [];
  const policy = new PolicyResponder(model, tokenizer, { maxNewTokens: 96, temperature: 0.5, topP: 1, batchSize: 64, signal });
  for (const env of envs) {
    const envConfig = pretrainEnvConfig(env, o.envConfig);
    const seeds = Array.from({ length: o.valSize }, (_, i) => 123 + i);
    const trajs = await rollout(
      { env, envConfig, seeds, groupSize: 1, split: 'val', settings: rolloutSettingsFor(env) },
      policy,
      tokenizer,
      new Rng(123),
    );
    success[env] = replyStats(trajs).success;
    all.push(...trajs);
    ev.progress?.(all.length);
  }
  const stats = replyStats(all);
  const result: PretrainResult = {
    params: countParams(model.config),
    vocabSize: tokenizer.vocabSize,
    examples: data.length,
    finalLoss,
    formatRate: stats.formatRate,
    validReplyRate: stats.validReplyRate,
    success,
    teacherSuccess,
    seconds: (performance.now() - t0) / 1000,
  };
  throwIfStopped(signal); // a stop during the last phase saves nothing
  await saveModelDir(o.out, model, tokenizer, {
    kind: 'starpo-tiny',
    size,
    pretrain: {
      ...o,
      size,
      out: undefined,
      signal: undefined,
      envConfig: o.env === 'mixed' ? undefined : pretrainEnvConfig(o.env, o.envConfig),
    },
    ...(start ? { initPretrain: start.meta.pretrain } : {}),
    result,
    backend: tf.getBackend(),
  });
  return result;
}
