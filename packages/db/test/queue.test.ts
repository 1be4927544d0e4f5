import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunQueue } from '../src/index.js';
import { freshDatabase, type TestDatabase } from '../src/testing.js';

describe('run queue', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db.drop());

  it('starts from several processes at once on a fresh database (API and workers racing to create its queues)', async () => {
    const queues = Array.from({ length: 4 }, () => new RunQueue(db.url));
    const started = await Promise.allSettled(queues.map((q) => q.start()));
    expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
    try {
      expect(await queues[0]!.dispatch('run-1', false)).toBe(true);
      expect(await queues[1]!.dispatch('run-1', false)).toBe(false); // one waiting dispatch per run
      const job = await queues[2]!.fetch(false);
      expect(job).toMatchObject({ queue: 'runs', runId: 'run-1' });
      expect(await queues[3]!.fetch(true)).toBeNull();
      await queues[2]!.complete(job!);
      expect(await queues[0]!.dispatch('run-gpu', true)).toBe(true);
      expect(await queues[1]!.fetch(false)).toBeNull(); // a CPU worker never takes GPU runs
      expect(await queues[1]!.fetch(true)).toMatchObject({ queue: 'runs-gpu', runId: 'run-gpu' });
    } finally {
      await Promise.all(queues.map((q) => q.stop()));
    }
  });
});
