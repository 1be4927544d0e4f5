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

  it.each([1, 3])(
    'a stop inside the update drops the step: the run ends at the step before (checkpointEvery %i), and resumed it ends with the weights, optimizer state and metrics of an uninterrupted run',
    async (checkpointEvery) => {
      await initBackend('wasm');
      // one sample per mini-batch: the filtered batch (one group of 3) takes three actor steps
      const config = buildRunConfig('starpo-s-grpo', {
        ...small,
        ppo: { ...small.ppo, miniBatchSize: 1, microBatchSize: 1 },
        training: { ...small.training, checkpointEvery },
      });
      const full = new MemorySink();
      let base = loadBaseModel(config.model.base, config.training.seed);
      await train({ config, base, sink: full });
      base.model.dispose();

      // stopped once the first of step 2's actor steps is applied
      let actorSteps = 0;
      const { result: r, sink: first } = await trainUntil(
        config,
        (phase, step) => phase === 'update_actor' && step === 2 && ++actorSteps === 2,
        'cancelled by user',
      );
      expect(r).toEqual({ status: 'cancelled', step: 1, stopReason: 'cancelled by user' });
      expect(first.logs).toContain('stop requested (cancelled by user) during the update of step 2: the step is dropped');
      expect(first.points.has(2)).toBe(false);
      // step 1's checkpoint: saved after step 1, or written at the stop from the learners kept when the update began
      expect(first.checkpoints.map((c) => c.step)).toEqual([1]);

      const second = new MemorySink();
      base = loadBaseModel(config.model.base, 999); // everything must come from the checkpoint
      const resumed = await train({ config, base, sink: second, resume: first.checkpoints.at(-1)!.files });
      base.model.dispose();
      expect(resumed.status).toBe('succeeded');
      for (const step of [2, 3]) expect(comparable(second.points.get(step)!)).toEqual(comparable(full.points.get(step)!));
      const [a, b] = [second.checkpoints.at(-1)!, full.checkpoints.at(-1)!];
      expect(a.step).toBe(3);
      for (const file of ['policy.safetensors', 'actor-optimizer.safetensors', 'state.json'])
        expect(Buffer.from(a.files.get(file)!).equals(Buffer.from(b.files.get(file)!)), file).toBe(true);
    },
    240_000,
  );
});
