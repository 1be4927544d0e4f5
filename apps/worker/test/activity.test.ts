import { buildRunConfig } from '@starpo/contracts';
import { claimRun, type Db } from '@starpo/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { executeRun } from '../src/execute.js';
import { registerWorker } from '../src/registration.js';
import { useWorkerDatabase } from './worker-db.js';

describe('a run tells what it is doing: progress, log lines and warnings stored with it', () => {
  const database = useWorkerDatabase();
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  it('stores the start line (worker, backend, threads, base), phase lines, step lines, the progress and the warnings of a from-scratch run', async () => {
    const config = buildRunConfig('quick-cpu', {
      env: { name: 'bandit' },
      model: { base: 'starpo-tiny/nano' },
      rollout: { envGroups: 2, groupSize: 2, maxNewTokens: 8, validation: { size: 2, every: 1 } },
      ppo: { miniBatchSize: 2, microBatchSize: 2, epochs: 1 },
      training: { steps: 2, checkpointEvery: 0 },
    });
    const team = await db.team.create({ data: { name: 'lab' } });
    const created = await db.run.create({
      data: { teamId: team.id, name: 'a1', config: config as object, environment: 'bandit', algorithm: 'turn_return', totalSteps: 2 },
    });
    const worker = await registerWorker(db, { backend: 'wasm', device: 'test', hasGpu: false });
    const run = (await claimRun(db, created.id, worker.id, false))!;
    // progress polled while the run goes: the loading phase from the claim on, then the phases with their counts
    const seen = new Set<string>();
    const poll = setInterval(() => {
      void db.run.findUnique({ where: { id: run.id }, select: { progress: true } }).then((r) => {
        const p = r?.progress as { phase: string; total: number; unit: string } | null;
        if (p) seen.add(p.total ? `${p.phase} ${p.total} ${p.unit}` : p.phase);
      });
    }, 20);
    const result = await executeRun(db, run, new AbortController().signal, () => {}, { worker: worker.name });
    clearInterval(poll);
    expect(result.status).toBe('succeeded');

    const logs = await db.runLog.findMany({ where: { runId: run.id }, orderBy: { id: 'asc' } });
    const lines = logs.map((l) => l.message);
    expect(lines[0]).toMatch(
      new RegExp(
        `^run started on worker ${worker.name}: backend wasm .*1 compute thread\\(s\\).* base starpo-tiny/nano \\(random init: from scratch\\)`,
      ),
    );
    expect(lines).toContain('step 0: validation started (2 episodes)');
    expect(lines.some((l) => /^step 1: rollout done in \d+\.\d s$/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('step 2/2 · success'))).toBe(true);
    expect(lines.at(-1)).toBe('run succeeded at step 2');
    const warnings = logs.filter((l) => l.code !== null);
    expect(warnings.map((w) => w.code)).toContain('no_well_formed_replies');
    expect(warnings.every((w) => w.level === 'warn' && w.message.startsWith(`[${w.code}] step `))).toBe(true);
    // the advice is worded against this run's config: its values, and nothing the environment does not have
    const flat = warnings.find((w) => w.code === 'no_reward_variance')!.message;
    expect(flat).toContain('more rollouts per group (rollout.groupSize, now 2)');
    expect(flat).toContain('a higher rollout.temperature (now 0.7)');
    expect(flat).not.toContain('rewardShaping'); // the bandit has no reward shaping to turn on
    expect(seen).toContain('loading');
    expect(seen).toContain('rollout 4 episodes');
    const after = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(after.progress).toMatchObject({ phase: 'validation', step: 2, done: 2, total: 2 });
  }, 120_000);
});
