import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadWorkerSettings } from '../src/settings.js';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const DATABASE_URL = 'postgresql://postgres:postgres@127.0.0.1:1/nowhere';

describe('worker settings', () => {
  it('fill their defaults, the sweep interval from the stale timeout', () => {
    const s = loadWorkerSettings({ DATABASE_URL, WORKER_NAME: 'w1' });
    expect(s).toMatchObject({
      name: 'w1',
      pollMs: 2000,
      heartbeatMs: 10_000,
      shutdownMs: 30_000,
      computeThreads: '1',
      staleMs: 60_000,
      sweepMs: 15_000,
    });
    expect(loadWorkerSettings({ DATABASE_URL, WORKER_STALE_MS: '8000' })).toMatchObject({ staleMs: 8000, sweepMs: 2000 });
    expect(loadWorkerSettings({ DATABASE_URL, WORKER_STALE_MS: '8000', WORKER_SWEEP_MS: '500' }).sweepMs).toBe(500);
  });

  it('check the trainer and database variables a worker reads too', () => {
    expect(() => loadWorkerSettings({ DATABASE_URL, STARPO_MATMUL: 'fast' })).toThrow(
      'STARPO_MATMUL: expected one of blas, tfjs, got "fast"',
    );
    expect(() => loadWorkerSettings({ DATABASE_URL, DB_QUERY_TIMEOUT_MS: '0' })).toThrow(
      'DB_QUERY_TIMEOUT_MS: expected a whole number of milliseconds ≥ 1',
    );
  });

  it('a bad value stops the built worker at start with one line naming it, before it touches the database', () => {
    const r = spawnSync(process.execPath, [main], {
      env: { PATH: process.env.PATH, DATABASE_URL, WORKER_STALE_MS: 'abc', STARPO_COMPUTE_THREADS: 'many' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      'worker: invalid environment: STARPO_COMPUTE_THREADS: expected a whole number ≥ 1 or auto, got "many"; WORKER_STALE_MS: expected a whole number of milliseconds ≥ 1, got "abc"',
    );
    expect(r.stdout).toBe('');
  });
});
