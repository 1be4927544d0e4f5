import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createDb } from '@starpo/db';
import { freshDatabase } from '@starpo/db/testing';
import { describe, expect, it } from 'vitest';
import { initBackend } from '@starpo/trainer';
import { registerWorker, startHeartbeat } from '../src/registration.js';

/** Where the trainer's OpenBLAS addon lands when its build finds libopenblas-dev. */
const addon = createRequire(import.meta.url)
  .resolve('@starpo/trainer')
  .replace(/dist\/index\.js$/, 'native/build/kernels.node');

describe('worker registration', () => {
  it('registers host, backend, device and memory, then heartbeats', async () => {
    const t = await freshDatabase();
    const db = createDb(t.url);
    try {
      const me = await registerWorker(db, { backend: 'cpu', engine: 'openblas', device: '2× test cpu', hasGpu: false });
      const row = await db.worker.findUniqueOrThrow({ where: { id: me.id } });
      expect(row).toMatchObject({ backend: 'cpu', engine: 'openblas', device: '2× test cpu', hasGpu: false, status: 'idle' });
      expect(row.memoryBytes).toBeGreaterThan(0n);
      const stop = startHeartbeat(db, me.id, 50, (e) => {
        throw e;
      });
      await new Promise((r) => setTimeout(r, 300));
      stop();
      const later = await db.worker.findUniqueOrThrow({ where: { id: me.id } });
      expect(later.lastHeartbeat.getTime()).toBeGreaterThan(row.lastHeartbeat.getTime());
    } finally {
      await db.$disconnect();
      await t.drop();
    }
  });

  it("stores the engine the trainer chose: OpenBLAS where the addon is built, else tfjs's kernels (the slow engine)", async () => {
    const t = await freshDatabase();
    const db = createDb(t.url);
    try {
      const backend = await initBackend('cpu');
      expect(backend.engine).toBe(existsSync(addon) ? 'openblas' : 'tfjs');
      expect(backend.device).toContain(existsSync(addon) ? 'OpenBLAS matMul' : 'tfjs matMul');
      const me = await registerWorker(db, { backend: backend.name, engine: backend.engine, device: backend.device, hasGpu: false });
      expect((await db.worker.findUniqueOrThrow({ where: { id: me.id } })).engine).toBe(backend.engine);
      // tfjs's kernels on purpose (as without the addon): reported as the slow engine
      const slow = execFileSync(
        process.execPath,
        ['--input-type=module', '-e', "const b = await (await import('@starpo/trainer')).initBackend('cpu'); console.log(b.engine);"],
        { env: { ...process.env, STARPO_MATMUL: 'tfjs' }, encoding: 'utf8' },
      );
      expect(slow.trim()).toBe('tfjs');
    } finally {
      await db.$disconnect();
      await t.drop();
    }
  });
});
