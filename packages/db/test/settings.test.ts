import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSweepMs, loadDbSettings, sweepTimings } from '../src/settings.js';

describe('database settings', () => {
  it('default the timeouts and read MODEL_ROOTS and ENV_ROOTS as absolute folders, ignoring relative ones', () => {
    expect(loadDbSettings({})).toEqual({
      queryTimeoutMs: 30_000,
      connectTimeoutMs: 10_000,
      idleInTransactionMs: 10_000,
      modelRoots: [],
      envRoots: [],
    });
    const roots = ['/srv/models', 'relative/models', '/srv/other/../shared'].join(path.delimiter);
    expect(loadDbSettings({ MODEL_ROOTS: roots, ENV_ROOTS: roots, DB_QUERY_TIMEOUT_MS: '4000' })).toMatchObject({
      queryTimeoutMs: 4000,
      modelRoots: ['/srv/models', '/srv/shared'],
      envRoots: ['/srv/models', '/srv/shared'],
    });
  });

  it('refuse a timeout that is not a positive whole number, naming it', () => {
    expect(() => loadDbSettings({ DB_CONNECT_TIMEOUT_MS: '2s' })).toThrow(
      'invalid environment: DB_CONNECT_TIMEOUT_MS: expected a whole number of milliseconds ≥ 1, got "2s"',
    );
  });

  it('sweep a quarter of the stale timeout, at most every 15 s, unless told otherwise', () => {
    expect(defaultSweepMs(60_000)).toBe(15_000);
    expect(sweepTimings({ WORKER_STALE_MS: 8000, WORKER_SWEEP_MS: undefined })).toEqual({ staleMs: 8000, sweepMs: 2000 });
    expect(sweepTimings({ WORKER_STALE_MS: 8000, WORKER_SWEEP_MS: 500 })).toEqual({ staleMs: 8000, sweepMs: 500 });
  });
});
