import { buildRunConfig } from '@starpo/contracts';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { RunActivity } from '../src/train/activity.js';
import { train } from '../src/train/loop.js';
import { loadBaseModel } from '../src/bases/load.js';
import { MemorySink } from '../src/train/sink.js';

describe('run activity', () => {
  it('reports each phase with its progress, logs phase start and end, a line per step, and the warnings of a run that cannot learn', async () => {
    await initBackend('wasm');
    // from scratch: no reply is well-formed, which the run must say
    const config = buildRunConfig('quick-cpu', {
      env: { name: 'bandit' },
      model: { base: 'starpo-tiny/nano' },
      rollout: { envGroups: 2, groupSize: 2, maxNewTokens: 8, validation: { size: 3, every: 2, beforeTraining: true } },
      ppo: { miniBatchSize: 2, microBatchSize: 2, epochs: 2 },
      training: { steps: 2, checkpointEvery: 0, seed: 3 },
    });
    const sink = new MemorySink();
    const base = loadBaseModel(config.model.base, config.training.seed);
    const result = await train({ config, base, sink });
    base.model.dispose();
    expect(result.status).toBe('succeeded');

    const phases = sink.progressed.map((p) => `${p.phase}@${p.step} ${p.done}/${p.total} ${p.unit}`);
    expect(phases[0]).toBe('validation@0 0/3 episodes');
    expect(phases).toContain('validation@0 3/3 episodes');
    expect(phases).toContain('rollout@1 0/4 episodes');
    expect(phases).toContain('rollout@1 4/4 episodes');
    // 4 samples in mini-batches of 2, two epochs
    expect(phases.filter((p) => p.startsWith('update@1')).at(-1)).toBe('update@1 4/4 mini-batches');
    expect(phases).toContain('validation@2 3/3 episodes');
    // measured times for the ETA: none before the first step, the step's length after it
    expect(sink.progressed[0]!.stepSeconds).toBeNull();
    const later = sink.progressed.find((p) => p.step === 2 && p.phase === 'rollout')!;
    expect(later.stepSeconds).toBeGreaterThan(0);
    expect(later.validationSeconds).toBeGreaterThan(0);
    expect(later.stepStartedAt).toBeGreaterThanOrEqual(later.startedAt - 1);

    expect(sink.logs).toContain('step 0: validation started (3 episodes)');
    expect(sink.logs.some((l) => /^step 1: rollout done in \d+\.\d s$/.test(l))).toBe(true);
    expect(sink.logs.some((l) => /^step 1: update done in/.test(l))).toBe(true);
    expect(sink.logs.some((l) => /^step 2\/2 · success .* · well-formed 0\.0% · .* s\/step$/.test(l))).toBe(true);
    expect(sink.logs.at(-1)).toBe('run succeeded at step 2');
    expect(sink.warnings.map((w) => w.code)).toContain('no_well_formed_replies');
  }, 120_000);

  it('coalesces progress sent faster than once a second, keeping the last', async () => {
    const sink = new MemorySink();
    const a = new RunActivity(sink);
    a.begin('rollout', 1, 64, 'episodes');
    for (let i = 1; i <= 40; i++) a.advance(i);
    a.end();
    await a.settled();
    expect(sink.progressed.length).toBeLessThanOrEqual(3);
    expect(sink.progressed.at(-1)).toMatchObject({ phase: 'rollout', done: 64, total: 64 });
  });
});
