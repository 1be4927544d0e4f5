import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRunConfig, type RunConfigOverrides } from '@starpo/contracts';
import { CountdownServer, renderSnapshot, validSnapshot } from '@starpo/envs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/backend.js';
import { loadBaseModel } from '../src/bases/load.js';
import { train } from '../src/train/loop.js';
import { MemorySink } from '../src/train/sink.js';
import type { Trajectory } from '../src/rollout/types.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PYTHON_CLIENT = path.resolve(HERE, '../../../clients/python');
const COUNTDOWN_BASE = path.join(HERE, 'bases', 'countdown-random');
const INSTANCE = { instance: { numbers: [2, 3], target: 6 } };

/** A sink that keeps the trajectories, as the database does. */
class KeepingSink extends MemorySink {
  kept: Trajectory[] = [];
  override async trajectories(step: number, t: Trajectory[]): Promise<void> {
    await super.trajectories(step, t);
    this.kept.push(...t);
  }
}

type Fault = (route: string, calls: number) => 'hang' | 'crash' | { body: unknown } | null;

/** Countdown served over HTTP by this test, with a fault injected into chosen calls. */
async function countdownOverHttp(fault: Fault = () => null): Promise<{ url: string; stepCalls: () => number; close(): Promise<void> }> {
  const env = new CountdownServer();
  const calls = new Map<string, number>();
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      const route = req.url ?? '';
      const n = (calls.get(route) ?? 0) + 1;
      calls.set(route, n);
      const f = fault(route, n);
      if (f === 'hang') return; // never answers
      if (f === 'crash') {
        req.socket.destroy();
        return;
      }
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (f) return send(200, f.body);
      try {
        const body = text ? JSON.parse(text) : {};
        if (route === '/describe') return send(200, env.describe());
        if (route === '/reset') return send(200, env.reset(body));
        if (route === '/step') return send(200, env.step(body));
        if (route === '/close') return send(200, {});
        send(404, { error: { message: `no route ${route}` } });
      } catch (e) {
        send(500, { error: { message: (e as Error).message } });
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    stepCalls: () => calls.get('/step') ?? 0,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** Two groups of two episodes a step, no validation: four step calls per training step. */
function remoteRun(remote: NonNullable<RunConfigOverrides['env']>['remote'], steps = 3, base = COUNTDOWN_BASE): RunConfigOverrides {
  return {
    env: { name: 'countdown-http', config: INSTANCE, remote },
    model: { base },
    rollout: { envGroups: 2, groupSize: 2, maxNewTokens: 32, validation: { size: 4, every: 0, beforeTraining: false } },
    ppo: { miniBatchSize: 4, microBatchSize: 4, actorLr: 1e-3, criticLr: 1e-3 },
    algorithm: { advEstimator: 'grpo' },
    filter: { ratio: 1 },
    training: { steps, checkpointEvery: 0, seed: 3 },
  };
}

async function run(overrides: RunConfigOverrides): Promise<{ sink: KeepingSink; result: Promise<unknown> }> {
  const config = buildRunConfig(undefined, overrides);
  const sink = new KeepingSink();
  const base = loadBaseModel(config.model.base, config.training.seed);
  const result = train({ config, base, sink }).finally(() => base.model.dispose());
  result.catch(() => {});
  return { sink, result };
}

describe('environments served over HTTP', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it('trains on Countdown served over HTTP, the episodes stored with drawable text snapshots', async () => {
    const server = await countdownOverHttp();
    cleanups.push(server.close);
    const { sink, result } = await run(remoteRun({ url: server.url }, 2));
    await expect(result).resolves.toMatchObject({ status: 'succeeded', step: 2 });
    // one step call per episode whose reply held an action
    expect(server.stepCalls()).toBe(sink.kept.filter((t) => t.numActions > 0).length);
    expect(server.stepCalls()).toBeGreaterThan(0);
    expect(Number.isFinite(sink.points.get(2)!['train/success'])).toBe(true);
    const t = sink.kept[0]!;
    expect(t.env).toBe('countdown-http');
    const snapshot = validSnapshot(t.env, t.finalSnapshot)!;
    expect(renderSnapshot(snapshot)).toMatch(/^Numbers: \[2, 3\]\nTarget: 6\nAnswer: /);
  }, 120_000);

  it('a hung environment: each call times out, the run fails naming it, and the steps before it keep their metrics', async () => {
    // step 1 resets its 4 episodes; from step 2 on, no reset is ever answered (each is tried 3 times)
    const server = await countdownOverHttp((route, n) => (route === '/reset' && n > 4 ? 'hang' : null));
    cleanups.push(server.close);
    const { sink, result } = await run(remoteRun({ url: server.url, timeoutMs: 400, retries: 2 }));
    await expect(result).rejects.toThrow(/POST http:\/\/127\.0\.0\.1:\d+\/reset: no answer within 400 ms/);
    expect([...sink.points.keys()].filter((s) => sink.points.get(s)!['train/success'] !== undefined)).toEqual([1]);
    expect(sink.kept.filter((t) => t.split === 'train')).toHaveLength(4);
  }, 120_000);

  it('a crashing environment ends only its episode under onError fail-episode, counted as failed with its error', async () => {
    const server = await countdownOverHttp((route, n) => (route === '/step' && n % 2 === 1 ? 'crash' : null));
    cleanups.push(server.close);
    const { sink, result } = await run(remoteRun({ url: server.url, onError: 'fail-episode', retries: 0 }, 1));
    await expect(result).resolves.toMatchObject({ status: 'succeeded', step: 1 });
    const failed = sink.kept.filter((t) => t.envError);
    expect(failed).toHaveLength(2);
    for (const t of failed) {
      expect(t.success).toBe(false);
      expect(t.envError).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/step: /);
    }
  }, 120_000);

  it('an environment that is not there: the run fails with the connection error after its retries', async () => {
    const server = await countdownOverHttp();
    await server.close();
    const { result } = await run(remoteRun({ url: server.url, retries: 1 }));
    await expect(result).rejects.toThrow(/GET http:\/\/127\.0\.0\.1:\d+\/describe: ECONNREFUSED/);
  }, 60_000);

  it('a malformed answer: the error names the field that broke the protocol', async () => {
    const server = await countdownOverHttp((route) =>
      route === '/step' ? { body: { observation: 'x', reward: 'a lot', done: true, success: true, snapshot: { text: 'x' } } } : null,
    );
    cleanups.push(server.close);
    const { result } = await run(remoteRun({ url: server.url }));
    await expect(result).rejects.toThrow(/countdown: malformed step answer: reward: Invalid input: expected number, received string/);
  }, 60_000);

  const python = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!python)(
    'trains a few steps on the Python reference server (FrozenLake) from the shipped FrozenLake base, started by a command',
    async () => {
      const { sink, result } = await run({
        ...remoteRun({ command: ['python3', '-m', 'examples.frozenlake_server'], cwd: PYTHON_CLIENT }, 2, 'starpo-base/frozenlake-tiny'),
        env: {
          name: 'frozenlake-gym',
          config: {},
          remote: { command: ['python3', '-m', 'examples.frozenlake_server'], cwd: PYTHON_CLIENT },
        },
        rollout: { envGroups: 2, groupSize: 2, maxNewTokens: 96, validation: { size: 4, every: 0, beforeTraining: false } },
      });
      await expect(result).resolves.toMatchObject({ status: 'succeeded', step: 2 });
      expect(sink.points.get(2)!['train/well_formed_rate']).toBeGreaterThan(0.5);
      const t = sink.kept.find((x) => x.turns.length > 0)!;
      const snapshot = validSnapshot(t.env, t.turns[0]!.snapshot)!;
      expect(snapshot).toMatchObject({ env: 'text', name: 'frozenlake-gym', legend: 'P: player, _: empty, O: hole, G: goal' });
      expect(renderSnapshot(snapshot)).toContain('Grid Map: \nP___\n_O_O\n___O\nO__G');
      expect(t.turns[0]!.parsed.validActions.every((a) => ['Left', 'Down', 'Right', 'Up'].includes(a))).toBe(true);
    },
    180_000,
  );
  if (!python) it('SKIPPED the Python reference server: python3 is not installed', () => expect(python).toBe(false));
});
