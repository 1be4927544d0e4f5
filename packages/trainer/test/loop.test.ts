import { buildRunConfig, type RunConfigOverrides } from '@starpo/contracts';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { train } from '../src/train/loop.js';
import { loadBaseModel } from '../src/bases/load.js';
import { MemorySink } from '../src/train/sink.js';

const small: RunConfigOverrides = {
  env: { name: 'bandit' },
  model: { base: 'starpo-tiny/nano' },
  rollout: { envGroups: 2, groupSize: 4, maxNewTokens: 8, validation: { size: 4, every: 2, beforeTraining: true } },
  ppo: { miniBatchSize: 4, microBatchSize: 2, actorLr: 1e-3, criticLr: 1e-3 },
  filter: { ratio: 1 },
  training: { steps: 3, checkpointEvery: 1, seed: 7 },
};

const comparable = (m: Record<string, number>) =>
  Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('timing_s/') && !k.startsWith('perf/tokens_per_s')));

describe('StarPO loop', () => {
  it('runs PPO with a critic and KL-in-reward, reporting metrics, trajectories and checkpoints through the sink', async () => {
    await initBackend('wasm');
    const config = buildRunConfig('starpo-ppo', small);
    const sink = new MemorySink();
    const before = tf.memory().numTensors;
    const base = loadBaseModel(config.model.base, config.training.seed);
    const result = await train({ config, base, sink });
    base.model.dispose();
    expect(result).toEqual({ status: 'succeeded', step: 3, stopReason: undefined });
    expect(tf.memory().numTensors).toBeLessThanOrEqual(before);
    const m1 = sink.points.get(1)!;
    for (const key of [
      'train/success',
      'train/reward/mean',
      'rollout/in_group_reward_std',
      'rollout/filter_kept_ratio',
      'actor/pg_loss',
      'actor/grad_norm',
      'actor/pg_clipfrac',
      'actor/ppo_kl',
      'actor/kl_ref',
      'critic/vf_loss',
      'critic/grad_norm',
      'critic/vf_explained_var',
      'timing_s/gen',
      'timing_s/update_actor',
      'train/well_formed_rate',
      'train/diag/hallucination_rate',
      'train/diag/think_answer_mismatch_rate',
      'train/diag/distinct_think_ratio',
    ]) {
      expect(Number.isFinite(m1[key]), key).toBe(true);
    }
    expect(sink.points.get(0)!['val/success']).toBeDefined();
    expect(sink.points.get(0)!['val/diag/outcome_mismatch_rate']).toBeDefined();
    expect(sink.points.get(2)!['val/bandit/success']).toBeDefined();
    expect(sink.checkpoints.map((c) => c.step)).toEqual([1, 2, 3]);
    expect([...sink.checkpoints[0]!.files.keys()].sort()).toEqual(
      [
        'actor-optimizer.safetensors',
        'config.json',
        'critic-optimizer.safetensors',
        'critic.safetensors',
        'policy.safetensors',
        'reference.safetensors',
        'run-config.json',
        'starpo.json',
        'state.json',
        'tokenizer.json',
        'tokenizer_config.json',
      ].sort(),
    );
    expect(sink.statuses.at(-1)).toMatchObject({ status: 'succeeded', step: 3 });
    expect(sink.trajs.filter((t) => t.split === 'train').map((t) => t.count)).toEqual([8, 8, 8]);
  }, 240_000);

  it('resuming from the step-2 checkpoint gives the same step-3 metrics as an uninterrupted run (cpu, fixed seed)', async () => {
    await initBackend('cpu');
    const config = buildRunConfig('starpo-s-grpo', {
      ...small,
      rollout: { envGroups: 2, groupSize: 3, maxNewTokens: 6, validation: { size: 2, every: 2, beforeTraining: true } },
      ppo: { miniBatchSize: 3, microBatchSize: 3, actorLr: 1e-3, lrSchedule: { type: 'cosine', warmupSteps: 1, horizonSteps: 3 } },
      filter: { ratio: 0.5 },
    });
    const full = new MemorySink();
    let base = loadBaseModel(config.model.base, config.training.seed);
    await train({ config, base, sink: full });
    base.model.dispose();
    // cosine from the peak after one warm-up step down to 0 at step 3
    expect([1, 2, 3].map((s) => full.points.get(s)!['actor/lr'])).toEqual([1e-3, 5e-4, 0].map((x) => expect.closeTo(x, 12)));

    const first = new MemorySink();
    const abort = new AbortController();
    const origMetrics = first.metrics.bind(first);
    first.metrics = async (step, values) => {
      await origMetrics(step, values);
      if (step === 2 && values['val/success'] !== undefined) abort.abort();
    };
    base = loadBaseModel(config.model.base, config.training.seed);
    const stopped = await train({ config, base, sink: first, signal: abort.signal });
    base.model.dispose();
    expect(stopped.status).toBe('cancelled');
    const ckpt = first.checkpoints.at(-1)!;
    expect(ckpt.step).toBe(2);

    const second = new MemorySink();
    base = loadBaseModel(config.model.base, 999); // different init: everything must come from the checkpoint
    const resumed = await train({ config, base, sink: second, resume: ckpt.files });
    base.model.dispose();
    expect(resumed.status).toBe('succeeded');
    expect([...second.points.keys()]).toEqual([3]);
    const got = comparable(second.points.get(3)!);
    const want = comparable(full.points.get(3)!);
    const diff = Object.keys(want)
      .filter((k) => got[k] !== want[k])
      .map((k) => `${k}: ${got[k]} vs ${want[k]}`);
    expect(diff).toEqual([]);
    expect(got).toEqual(want);
  }, 240_000);

  it('honours a cancel signal before any step and reports cancelled', async () => {
    await initBackend('wasm');
    const config = buildRunConfig('starpo-s-grpo', {
      ...small,
      rollout: { ...small.rollout, validation: { beforeTraining: false, every: 0 } },
    });
    const sink = new MemorySink();
    const abort = new AbortController();
    abort.abort();
    const base = loadBaseModel(config.model.base, 1);
    const r = await train({ config, base, sink, signal: abort.signal });
    base.model.dispose();
    expect(r.status).toBe('cancelled');
    expect(sink.checkpoints.map((c) => c.step)).toEqual([0]);
  });

  it('a deadline ends the run after the step that reaches it, validated and checkpointed', async () => {
    await initBackend('wasm');
    const config = buildRunConfig('starpo-s-grpo', {
      ...small,
      rollout: { envGroups: 2, groupSize: 2, maxNewTokens: 4, validation: { size: 2, every: 10, beforeTraining: false } },
      ppo: { miniBatchSize: 2, microBatchSize: 2, actorLr: 1e-3 },
      training: { steps: 5, checkpointEvery: 10, seed: 7 },
    });
    const sink = new MemorySink();
    const base = loadBaseModel(config.model.base, 1);
    const r = await train({ config, base, sink, deadline: Date.now() });
    base.model.dispose();
    expect(r).toEqual({ status: 'succeeded', step: 1, stopReason: 'time limit' });
    expect(sink.points.get(1)!['val/success']).toBeDefined();
    expect(sink.checkpoints.map((c) => c.step)).toEqual([1]);
  }, 120_000);
});
