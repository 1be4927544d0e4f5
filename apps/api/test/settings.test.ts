import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadApiSettings } from '../src/settings.js';
import { signupOwner, startTestApi } from './helpers.js';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const DATABASE_URL = 'postgresql://postgres:postgres@127.0.0.1:1/nowhere';

describe('API settings', () => {
  it('fill their defaults: the API answers within seconds, and sweeps with the workers’ timings', () => {
    expect(loadApiSettings({ DATABASE_URL })).toEqual({
      databaseUrl: DATABASE_URL,
      port: 3001,
      host: '127.0.0.1',
      webOrigin: 'http://127.0.0.1:3000',
      secureCookies: false,
      authRateLimit: 20,
      ingestRateLimit: 600,
      externalStaleMs: 600_000,
      previewTimeoutMs: 5_000,
      shutdownMs: 10_000,
      dbQueryTimeoutMs: 4_000,
      dbConnectTimeoutMs: 2_000,
      dbPoolSize: 20,
      workerStaleMs: 60_000,
      workerSweepMs: 15_000,
    });
    expect(loadApiSettings({ DATABASE_URL, WORKER_STALE_MS: '3000', SECURE_COOKIES: '1' })).toMatchObject({
      workerStaleMs: 3000,
      workerSweepMs: 750,
      secureCookies: true,
    });
  });

  it('a bad value stops the built API at start with one line naming it, and a missing DATABASE_URL too', () => {
    const start = (env: Record<string, string>) =>
      spawnSync(process.execPath, [main], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 30_000 });
    const bad = start({ DATABASE_URL, API_PORT: '-1' });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe('api: invalid environment: API_PORT: expected a port number from 1 to 65535, got "-1"');
    const missing = start({});
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim()).toBe('api: invalid environment: DATABASE_URL: required, a postgresql:// connection URL');
  });

  it('GET /api/workers calls a worker lost after the stale timeout the API was given (WORKER_STALE_MS), as the workers page shows it', async () => {
    const t = await startTestApi({ workerStaleMs: 5_000 });
    try {
      const owner = await signupOwner(t);
      await t.db.worker.create({
        data: { name: 'w1', host: 'h', backend: 'wasm', device: 'cpu', status: 'idle', lastHeartbeat: new Date(Date.now() - 10_000) },
      });
      const res = await t.http.get('/api/workers').set('Authorization', owner.auth).expect(200);
      expect(res.body[0]).toMatchObject({ name: 'w1', status: 'lost' }); // the default (60 s) would call it idle
    } finally {
      await t.close();
    }
  });
});
