import { buildRunConfig, type RunConfig, type RunConfigOverrides } from '@starpo/contracts';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { parseJsonFile } from '../src/train/checkpoint.js';
import { train, type TrainResult } from '../src/train/loop.js';
import { loadBaseModel } from '../src/bases/load.js';
import { MemorySink } from '../src/train/sink.js';

const small: RunConfigOverrides = {
  env: { name: 'bandit' },
  model: { base: 'starpo-tiny/nano' },
  rollout: { envGroups: 2, groupSize: 3, maxNewTokens: 6, validation: { size: 2, every: 2, beforeTraining: true } },
  ppo: { miniBatchSize: 3, microBatchSize: 3, actorLr: 1e-3 },
  filter: { ratio: 0.5 },
  training: { steps: 3, checkpointEvery: 1, seed: 7 },
};

const comparable = (m: Record<string, number>) =>
  Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('timing_s/') && !k.startsWith('perf/tokens_per_s')));

/** Train `config` from its base until `stopAt` (given each phase as it begins) says to stop, with `reason`. */
async function trainUntil(
  config: RunConfig,
  stopAt: (phase: string, step: number) => boolean,
  reason: string,
): Promise<{ result: TrainResult; sink: MemorySink }> {
  const abort = new AbortController();
  const sink = new MemorySink();
  const base = loadBaseModel(config.model.base, config.training.seed);
  try {
    const result = await train({ config, base, sink, signal: abort.signal, onPhase: (p, s) => stopAt(p, s) && abort.abort(reason) });
    return { result, sink };
  } finally {
    base.model.dispose();
  }
}

describe('stop requests inside long phases', () => {
  it('a stop during the first validation cuts it short; the checkpoint marks it due and a resumed run validates first', async () => {
    await initBackend('wasm');
    const config = buildRunConfig('starpo-s-grpo', small);
    const { result: r, sink } = await trainUntil(config, (phase) => phase === 'validation', 'worker shutting down');
    expect(r).toEqual({ status: 'cancelled', step: 0, stopReason: 'worker shutting down' });
    expect(sink.points.size).toBe(0); // not one validation metric: the phase was abandoned, not finished
    const ckpt = sink.checkpoints.at(-1)!;
    expect(ckpt.step).toBe(0);
    expect(parseJsonFile<{ pendingValidation?: boolean }>(ckpt.files.get('state.json')!).pendingValidation).toBe(true);

    const resumed = new MemorySink();
    const base = loadBaseModel(config.model.base, config.training.seed);
    const done = await train({ config, base, sink: resumed, resume: ckpt.files });
    base.model.dispose();
    expect(done.status).toBe('succeeded');
    expect([...resumed.points.keys()]).toEqual([0, 1, 2, 3]);
    expect(resumed.points.get(0)!['val/success']).toBeDefined();
  }, 120_000);

  it('a stop inside a rollout checkpoints the last finished step; resumed, the step repeats exactly', async () => {
    await initBackend('wasm');
    const config = buildRunConfig('starpo-s-grpo', small);
    const full = new MemorySink();
    let base = loadBaseModel(config.model.base, config.training.seed);
    await train({ config, base, sink: full });
    base.model.dispose();

    const { result: stopped, sink: first } = await trainUntil(config, (phase, step) => phase === 'gen' && step === 3, 'cancelled by user');
    expect(stopped).toEqual({ status: 'cancelled', step: 2, stopReason: 'cancelled by user' });
    expect(first.points.has(3)).toBe(false);
    const ckpt = first.checkpoints.at(-1)!;
    expect(ckpt.step).toBe(2);

    const second = new MemorySink();
    base = loadBaseModel(config.model.base, 999); // everything must come from the checkpoint
    const resumed = await train({ config, base, sink: second, resume: ckpt.files });
    base.model.dispose();
    expect(resumed.status).toBe('succeeded');
    expect(comparable(second.points.get(3)!)).toEqual(comparable(full.points.get(3)!));
  }, 180_000);

  it('a stop inside the update ends it between mini-batches: the step is stored with the ones applied, checkpointed, and the run cancelled', async () => {
    await initBackend('wasm');
    // one sample per mini-batch: the filtered batch (one group of 3) takes three actor steps
    const config = buildRunConfig('starpo-s-grpo', { ...small, ppo: { ...small.ppo, miniBatchSize: 1, microBatchSize: 1 } });
    let actorSteps = 0;
    const { result: r, sink } = await trainUntil(
      config,
      (phase, step) => phase === 'update_actor' && step === 2 && ++actorSteps === 2,
      'cancelled by user',
    );
    expect(r).toEqual({ status: 'cancelled', step: 2, stopReason: 'cancelled by user' });
    expect(sink.logs).toContain('stop requested during the update of step 2: 1 of 3 mini-batches applied');
    expect(sink.points.get(2)!['actor/loss']).toBeDefined();
    expect(sink.points.has(3)).toBe(false);
    expect(sink.checkpoints.at(-1)!.step).toBe(2);
  }, 120_000);
});
