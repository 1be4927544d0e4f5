import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildRunConfig, createBaseModelSchema } from '@starpo/contracts';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { registerEvalCommand } from '../src/cli/eval-command.js';
import { loadModelDir, saveModelDir } from '../src/model/storage.js';
import { combinePasses, evaluatePolicy } from '../src/train/evaluate.js';
import { rolloutSettings } from '../src/rollout/settings.js';
import { envConfigMismatch, train } from '../src/train/loop.js';
import { loadBaseModel } from '../src/bases/load.js';
import { FileSink } from '../src/train/file-sink.js';
import { PRETRAIN_DEFAULTS, pretrainEnvConfig } from '../src/pretrain/pretrain.js';

async function runEval(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const program = new Command().exitOverride();
  registerEvalCommand(program, (l) => lines.push(l));
  await program.parseAsync(['node', 'starpo', 'eval', ...args]);
  return lines;
}

describe('evaluation', () => {
  it('evaluatePolicy plays one episode per seed in batches of 64 and reports val/ metrics', async () => {
    await initBackend('wasm');
    const c = buildRunConfig('quick-cpu', { env: { name: 'bandit' }, rollout: { maxNewTokens: 6 } });
    const base = loadBaseModel('starpo-tiny/nano', 3);
    const r = await evaluatePolicy(base.model, base.tokenizer, {
      env: 'bandit',
      envConfig: {},
      settings: rolloutSettings(c),
      episodes: 70,
      seedBase: 123,
      temperature: 0.5,
      topP: 1,
      maxNewTokens: 6,
      samplerSeed: 1,
    });
    base.model.dispose();
    expect(r.trajectories.map((t) => t.seed)).toEqual(Array.from({ length: 70 }, (_, i) => 123 + i));
    expect(r.trajectories.every((t) => t.split === 'val')).toBe(true);
    expect(r.metrics['val/success']).toBe(r.trajectories.filter((t) => t.success).length / 70);
    expect(r.metrics['val/well_formed_rate']).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('combinePasses: k passes over the same seeds give mean metrics and pass@k from the per-seed wins', () => {
    const pass = (wins: boolean[], success: number) => ({
      trajectories: wins.map((w, i) => ({ seed: 123 + i, success: w })),
      metrics: { 'val/success': success, 'val/num_actions': 2 * success },
    });
    const r = combinePasses([
      pass([true, false, false, false], 0.25),
      pass([true, true, false, false], 0.5),
      pass([false, false, false, false], 0),
    ]);
    expect([...r.solvedPerSeed.entries()]).toEqual([
      [123, 2],
      [124, 1],
      [125, 0],
      [126, 0],
    ]);
    expect(r.passAtK).toBe(0.5);
    expect(r.metrics['val/success']).toBeCloseTo(0.25, 12);
    expect(r.metrics['val/num_actions']).toBeCloseTo(0.5, 12);
    const partial = combinePasses([
      { trajectories: [], metrics: { 'val/success': 1, 'val/diag/x': 0.5 } },
      { trajectories: [], metrics: { 'val/success': 0 } },
    ]);
    expect(partial.metrics).toEqual({ 'val/success': 0.5, 'val/diag/x': 0.5 });
  });

  it('`starpo eval` loads a training checkpoint (policy.safetensors) with its run config', async () => {
    await initBackend('wasm');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-eval-'));
    try {
      const config = buildRunConfig('starpo-s-grpo', {
        env: { name: 'bandit' },
        model: { base: 'starpo-tiny/nano' },
        rollout: { envGroups: 2, groupSize: 2, maxNewTokens: 4, validation: { size: 2, every: 0, beforeTraining: false } },
        ppo: { miniBatchSize: 2, microBatchSize: 2 },
        training: { steps: 1, checkpointEvery: 1, seed: 7 },
      });
      const base = loadBaseModel(config.model.base, 1);
      await train({ config, base, sink: new FileSink(dir) });
      const ckpt = path.join(dir, 'checkpoints', 'step-000001');
      const loaded = loadModelDir(ckpt);
      const [a, b] = [await base.model.exportTensors(), await loaded.model.exportTensors()];
      for (const [name, t] of a) expect(Array.from(b.get(name)!.data)).toEqual(Array.from(t.data));
      base.model.dispose();
      loaded.model.dispose();
      const lines = await runEval(['--model', ckpt, '--episodes', '3', '--backend', 'wasm']);
      expect(lines.join('\n')).toMatch(/^bandit .*: 3 episodes from seed 123, temperature 0\.5$/m);
      expect(lines.join('\n')).toMatch(/^success \d+\.\d% \(± \d+\.\d standard error\)$/m);
      await expect(runEval(['--model', ckpt, '--episodes', '0'])).rejects.toThrow(/--episodes must be a positive integer/);
      const turnsFile = path.join(dir, 'turns.jsonl');
      await runEval(['--model', ckpt, '--episodes', '3', '--backend', 'wasm', '--turns', turnsFile]);
      const turns = readFileSync(turnsFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      // bandit is one turn an episode: one line per seed, with the state, the reply and its checks
      expect(turns.map((t) => t.seed)).toEqual([123, 124, 125]);
      for (const t of turns) {
        expect(t).toMatchObject({ env: 'bandit', turn: 1, state: { env: 'bandit' } });
        expect(typeof t.reply).toBe('string');
        expect(t.diagnostics.v).toBe(1);
      }
      const sampled = await runEval(['--model', ckpt, '--episodes', '2', '--samples', '2', '--backend', 'wasm']);
      expect(sampled.join('\n')).toMatch(/^2 samples per seed: pass@2 \d+\.\d% \(seeds solved at least once\)$/m);
      await expect(runEval(['--model', ckpt, '--samples', '0'])).rejects.toThrow(/--samples must be a positive integer/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('warns when the base was pretrained on another environment config than the run uses', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-base-'));
    try {
      const base = loadBaseModel('starpo-tiny/nano', 1);
      // Pretraining never sees rewards: a base saved without reward shaping matches a run that shapes.
      await saveModelDir(dir, base.model, base.tokenizer, {
        pretrain: { env: 'sokoban', envConfig: { observationFormat: 'grid_coord', rewardShaping: 'none' } },
      });
      base.model.dispose();
      const meta = loadModelDir(dir).meta;
      const grid = buildRunConfig('quick-cpu', { env: { name: 'sokoban', config: { observationFormat: 'grid' } } });
      const coord = buildRunConfig('quick-cpu', { env: { name: 'sokoban' } });
      expect(envConfigMismatch(meta, grid)).toBe(
        'the base model was pretrained with observationFormat="grid_coord" (run: "grid"); set env.config to match unless this is intended',
      );
      expect(coord.env.config.rewardShaping).toBe('solver_distance');
      expect(envConfigMismatch(meta, coord)).toBeNull();
      expect(envConfigMismatch(meta, buildRunConfig('quick-cpu', { env: { name: 'bandit' } }))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('pretrain defaults', () => {
  it('POST /api/base-models defaults are the trainer’s, and the base is pretrained on quick-cpu’s Sokoban observation', () => {
    const api = createBaseModelSchema.parse({ name: 'b', env: 'sokoban' });
    expect({
      size: api.size,
      dialogues: api.dialogues,
      epochs: api.epochs,
      batchSize: api.batchSize,
      lr: api.lr,
      randomActionShare: api.randomShare,
      valSize: api.valSize,
      seed: api.seed,
    }).toEqual({
      size: PRETRAIN_DEFAULTS.size,
      dialogues: PRETRAIN_DEFAULTS.dialogues,
      epochs: PRETRAIN_DEFAULTS.epochs,
      batchSize: PRETRAIN_DEFAULTS.batchSize,
      lr: PRETRAIN_DEFAULTS.lr,
      randomActionShare: PRETRAIN_DEFAULTS.randomActionShare,
      valSize: PRETRAIN_DEFAULTS.valSize,
      seed: PRETRAIN_DEFAULTS.seed,
    });
    expect(pretrainEnvConfig('sokoban').observationFormat).toBe('grid_coord');
    expect(pretrainEnvConfig('sokoban', { observationFormat: 'grid' }).observationFormat).toBe('grid');
    expect(pretrainEnvConfig('frozenlake').observationFormat).toBe('grid_coord');
    // any one environment takes settings of its own (the CLI's --env-config), on top of the preset's
    expect(pretrainEnvConfig('frozenlake', { map: ['SF', 'HG'], successRate: 1 })).toMatchObject({
      map: ['SF', 'HG'],
      successRate: 1,
      rewardShaping: 'goal_distance',
    });
    expect(() => pretrainEnvConfig('frozenlake', { map: ['SF', 'FF'] })).toThrow(/map/);
  });
});
