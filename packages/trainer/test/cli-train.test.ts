import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

describe('starpo train (smoke)', () => {
  // The preset's batch is shrunk (16 trajectories, 8 validation episodes) and replies capped at 64 tokens to
  // keep CI short (the run starts from the shipped Sokoban base; an untrained model writes maximal replies for
  // all 5 turns, whose ~1,900-token dialogues at 96 tokens come close to wasm's memory limit).
  it('`starpo train --preset quick-cpu --env sokoban --steps 3` completes and writes metrics, trajectories and checkpoints', () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'starpo-train-'));
    try {
      const stdout = execFileSync(
        process.execPath,
        [
          bin,
          'train',
          '--preset',
          'quick-cpu',
          '--env',
          'sokoban',
          '--steps',
          '3',
          '--out',
          out,
          '--set',
          'rollout.envGroups=4',
          'rollout.groupSize=4',
          'rollout.validation.size=8',
          'ppo.miniBatchSize=16',
          'rollout.maxNewTokens=64',
        ],
        {
          encoding: 'utf8',
          env: { ...process.env, STARPO_BACKEND: 'wasm' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      expect(stdout).toMatch(/succeeded at step 3/);
      // the last line: validation at step 0 → step 3 over 8 episodes, and the verdict on it
      expect(stdout.trim().split('\n').at(-1)).toMatch(
        /^validation success \d+\.\d% → \d+\.\d% \(8 episodes each\): (improved|no clear change|got worse) \(±\d+\.\d points is noise\)$/,
      );
      const metrics = readFileSync(path.join(out, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, number>);
      const steps = new Set(metrics.filter((m) => m['train/success'] !== undefined).map((m) => m.step));
      expect([...steps]).toEqual([1, 2, 3]);
      expect(metrics.some((m) => m.step === 0 && m['val/success'] !== undefined)).toBe(true);
      const trajs = readFileSync(path.join(out, 'trajectories.jsonl'), 'utf8').trim().split('\n');
      const first = JSON.parse(trajs[0]!) as { turns: { rawReply: string; snapshot: { env: string } }[] };
      expect(first.turns[0]!.snapshot.env).toBe('sokoban');
      expect(readdirSync(path.join(out, 'checkpoints'))).toContain('step-000003');
      expect(existsSync(path.join(out, 'checkpoints', 'step-000003', 'policy.safetensors'))).toBe(true);
      expect(JSON.parse(readFileSync(path.join(out, 'status.json'), 'utf8'))).toMatchObject({ status: 'succeeded', step: 3 });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 1_200_000);
});
