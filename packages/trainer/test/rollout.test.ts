import * as tf from '@tensorflow/tfjs';
import { buildRunConfig } from '@starpo/contracts';
import { Rng, createEnv, type BanditSnapshot } from '@starpo/envs';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { starpoTinyConfig } from '../src/model/config.js';
import { Qwen2Model } from '../src/model/qwen2.js';
import { TeacherResponder } from '../src/pretrain/teacher.js';
import { rolloutSettingsFor } from '../src/pretrain/pretrain.js';
import { vocabularyCorpus } from '../src/pretrain/corpus.js';
import { PolicyResponder, type Responder } from '../src/rollout/responder.js';
import { rollout, type RolloutRequest } from '../src/rollout/rollout.js';
import type { Trajectory } from '../src/rollout/types.js';
import { loadBaseModel } from '../src/bases/load.js';
import { rolloutMetrics } from '../src/train/metrics.js';
import { joinRows, scoreSamples, segmentRows, toSample } from '../src/train/batch.js';
import { CompactTokenizer, buildCompactVocab } from '../src/tokenizer/compact-tokenizer.js';

const tokenizer = new CompactTokenizer(buildCompactVocab(vocabularyCorpus(40)));
const seeds = [11, 22, 33, 44, 55, 66, 77, 88];

/** Structural invariants every rollout result must satisfy. */
function checkStructure(trajs: Trajectory[], req: RolloutRequest): void {
  const s = req.settings;
  expect(trajs).toHaveLength(req.seeds.length * req.groupSize);
  for (const t of trajs) {
    expect(t.seed).toBe(req.seeds[t.group]);
    expect(t.split).toBe(req.split);
    expect(t.turns.length).toBeGreaterThan(0);
    expect(t.turns.length).toBeLessThanOrEqual(s.maxTurns);
    expect(t.numActions).toBeLessThanOrEqual(s.maxActionsPerTraj);
    for (const turn of t.turns) expect(turn.executed.length).toBeLessThanOrEqual(s.maxActionsPerTurn);
    // masks: same length as ids, ones exactly on the assistant spans
    expect(t.lossMask).toHaveLength(t.ids.length);
    expect(t.turnSpans).toHaveLength(t.turns.length);
    const inSpan = new Array(t.ids.length).fill(0);
    for (const [a, b] of t.turnSpans) for (let i = a; i < b; i++) inSpan[i] = 1;
    expect(t.lossMask).toEqual(inSpan);
    // segments: each starts a sequence of its own (the chat template's first token)
    expect(t.segmentStarts[0]).toBe(0);
    for (const a of t.segmentStarts) expect(t.ids[a]).toBe(t.ids[0]);
    // each span decodes to the trained reply (canonical, or raw when it did not parse) and its end-of-turn token
    t.turnSpans.forEach(([a, b], k) => {
      const turn = t.turns[k]!;
      const trained = turn.parsed.formatOk ? turn.parsed.canonical : turn.rawReply;
      expect(tokenizer.decode(t.ids.slice(a, b))).toBe(trained.slice('<think>'.length) + '<|im_end|>');
    });
    // rewards: penalty per penalised turn, trajectory reward only on the last trained token
    expect(t.penalty).toBeCloseTo(t.turns.filter((x) => x.parsed.penalized).length * s.formatPenalty);
    expect(t.totalReward).toBeCloseTo(t.envReward + t.penalty);
    const last = t.lossMask.lastIndexOf(1);
    t.scores.forEach((v, i) => expect(v).toBe(i === last ? t.totalReward : 0));
    expect(t.turnRewards.reduce((a, b) => a + b, 0)).toBeCloseTo(t.totalReward);
  }
  // a group shares its initial state; the first turn's snapshot is that state
  for (let g = 0; g < req.seeds.length; g++) {
    const group = trajs.filter((t) => t.group === g);
    expect(group.map((t) => t.indexInGroup)).toEqual([...Array(req.groupSize).keys()]);
    const env = createEnv(req.env, req.envConfig);
    env.reset(req.seeds[g]!);
    for (const t of group) expect(t.turns[0]!.snapshot).toEqual(env.snapshot());
  }
}

describe('multi-turn rollout', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it('8 groups × 16 with the scripted teacher: structure, rewards, successes', async () => {
    const req: RolloutRequest = {
      env: 'sokoban',
      envConfig: {},
      seeds,
      groupSize: 16,
      split: 'train',
      settings: rolloutSettingsFor('sokoban'),
    };
    const trajs = await rollout(req, new TeacherResponder({ maxActionsPerTurn: 5, randomActionShare: 0.2 }), tokenizer, new Rng(3));
    checkStructure(trajs, req);
    expect(trajs.some((t) => t.success)).toBe(true);
    // success pays +1 and +10 on the last push; at most 10 steps cost -0.1 each
    for (const t of trajs.filter((x) => x.success)) expect(t.envReward).toBeGreaterThanOrEqual(11 - 0.1 * 10 - 1e-9);
    // different members of a group diverge (random teacher actions)
    expect(new Set(trajs.filter((t) => t.group === 0).map((t) => t.numActions + ':' + t.totalReward)).size).toBeGreaterThan(1);
  });

  it('a language-model policy (2 groups × 4, untrained): malformed replies are data, penalised and kept raw; no tensor leaks', async () => {
    const model = Qwen2Model.init(starpoTinyConfig('nano', tokenizer.vocabSize), { seed: 1 });
    const policy = new PolicyResponder(model, tokenizer, { maxNewTokens: 12, temperature: 1, topP: 1, batchSize: 8 });
    const req: RolloutRequest = {
      env: 'sokoban',
      envConfig: {},
      seeds: seeds.slice(0, 2),
      groupSize: 4,
      split: 'train',
      settings: { ...rolloutSettingsFor('sokoban'), maxTurns: 2 },
    };
    const before = tf.memory().numTensors;
    const trajs = await rollout(req, policy, tokenizer, new Rng(5));
    expect(tf.memory().numTensors).toBe(before);
    checkStructure(trajs, req);
    // an untrained model breaks the format: every turn penalised, raw reply stored
    const turn = trajs[0]!.turns[0]!;
    expect(turn.parsed.formatOk).toBe(false);
    expect(turn.penalty).toBe(-0.1);
    expect(turn.rawReply.startsWith('<think>')).toBe(true);
    expect(turn.responseTokens).toBeGreaterThan(0);
    expect(turn.meanEntropy).toBeGreaterThan(0);
    model.dispose();
  });

  it('Bandit: the members of a group share the arms but each draws its own payout', async () => {
    // always the high-risk arm: a group's rewards then differ only by the payout draws
    const highArm: Responder = {
      respond: async (reqs) =>
        reqs.map((r) => {
          const arm = (r.env.snapshot() as BanditSnapshot).arms.find((a) => a.risk === 'high')!.name;
          return { text: `bold</think><answer>${arm}</answer>`, tokenCount: 1 };
        }),
    };
    const req: RolloutRequest = {
      env: 'bandit',
      envConfig: {},
      seeds: [1, 2],
      groupSize: 16,
      split: 'train',
      settings: rolloutSettingsFor('bandit'),
    };
    const trajs = await rollout(req, highArm, tokenizer, new Rng(1));
    for (const g of [0, 1]) {
      const paid = trajs.filter((t) => t.group === g).map((t) => t.envReward);
      expect(new Set(paid), `group ${g}`).toEqual(new Set([0, 1]));
    }
  });

  it('every sampled reply re-scores to its sampling log-prob, also when its prompt was cut to fit the context', async () => {
    // the shipped Sokoban base writes well-formed replies, as a run trains on them
    const { model, tokenizer: tok } = loadBaseModel('starpo-base/sokoban-tiny', 0);
    const temperature = 0.7;
    const policy = new PolicyResponder(model, tok, { maxNewTokens: 100, temperature, topP: 1, batchSize: 8 });
    const envConfig = buildRunConfig('quick-cpu', {}).env.config;
    const settings = { ...rolloutSettingsFor('sokoban'), maxTurns: 5, maxContextTokens: 100_000 };
    const req = (maxContextTokens: number): RolloutRequest => ({
      env: 'sokoban',
      envConfig,
      seeds: [3, 4],
      groupSize: 2,
      split: 'train',
      settings: { ...settings, maxContextTokens },
    });
    const full = await rollout(req(100_000), policy, tok, new Rng(4));
    // a context that holds about half the longest dialogue: later turns are sampled from a prompt with its oldest turns dropped
    const cut = req(Math.round(0.55 * Math.max(...full.map((t) => t.ids.length))));
    const trajs = await rollout(cut, policy, tok, new Rng(4));
    for (const t of trajs) expect(t.lossMask).toHaveLength(t.ids.length);
    expect(trajs.some((t) => t.segmentStarts.length > 1)).toBe(true);
    expect(rolloutMetrics(trajs, 'train')['train/cut_context_turns']).toBeGreaterThan(0);
    expect(rolloutMetrics(full, 'train')['train/cut_context_turns']).toBe(0);
    const samples = trajs.map(toSample);
    // the sampler reports log-probs of the untempered distribution
    const logProbs = joinRows(samples, (await scoreSamples(model, segmentRows(samples), tok.padId, 4096, 1)).logProbs);
    let turns = 0;
    trajs.forEach((t, i) =>
      t.turnSpans.forEach(([a, b], k) => {
        const turn = t.turns[k]!;
        // the reply's tokens (not the appended end-of-turn token) are predicted at target positions a − 1 … b − 3
        const scored = logProbs[i]!.slice(a - 1, b - 2);
        expect(scored, `trajectory ${i} turn ${k}: the trained reply is the sampled one`).toHaveLength(turn.responseTokens);
        const mean = scored.reduce((x, y) => x + y, 0) / scored.length;
        expect(Math.abs(mean - turn.meanLogProb!), `trajectory ${i} turn ${k}`).toBeLessThan(1e-4);
        turns++;
      }),
    );
    expect(turns).toBeGreaterThan(8);
    model.dispose();
  }, 120_000);

  it('FrozenLake and Bandit roll out with their own limits', async () => {
    for (const env of ['frozenlake', 'bandit']) {
      const req: RolloutRequest = { env, envConfig: {}, seeds: [1, 2], groupSize: 4, split: 'val', settings: rolloutSettingsFor(env) };
      const trajs = await rollout(req, new TeacherResponder({ maxActionsPerTurn: 5, randomActionShare: 0 }), tokenizer, new Rng(1));
      checkStructure(trajs, req);
      if (env === 'bandit') for (const t of trajs) expect(t.turns).toHaveLength(1);
    }
  });
});
