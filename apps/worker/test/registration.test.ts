import { createDb } from '@starpo/db';
import { freshDatabase } from '@starpo/db/testing';
import { describe, expect, it } from 'vitest';
import { registerWorker, startHeartbeat } from '../src/registration.js';

describe('worker registration', () => {
  it('registers host, backend, device and memory, then heartbeats', async () => {
    const t = await freshDatabase();
    const db = createDb(t.url);
    try {
      const me = await registerWorker(db, { backend: 'cpu', device: '2× test cpu', hasGpu: false });
      const row = await db.worker.findUniqueOrThrow({ where: { id: me.id } });
      expect(row).toMatchObject({ backend: 'cpu', device: '2× test cpu', hasGpu: false, status: 'idle' });
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
});
