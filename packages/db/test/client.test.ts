import { describe, expect, it } from 'vitest';
import { createDb, inTransaction, isConnectionError } from '../src/index.js';
import { freshDatabase } from '../src/testing.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createDb connections', () => {
  it('a transaction the server ends while its process sits idle in it fails its next query; the process lives on', async () => {
    const t = await freshDatabase();
    // what a worker frozen mid-transaction (SIGSTOP) meets when it wakes: the server has ended its session
    const db = createDb(t.url, { idleInTransactionMs: 200 });
    try {
      const failed = await inTransaction(db, async (client) => {
        await client.query('SELECT 1');
        await sleep(800); // the server's FATAL arrives now, between two queries
        await client.query('SELECT 1');
      }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(Error);
      expect(isConnectionError(failed)).toBe(true); // so the sink's retry takes it, on a fresh connection
      // the pool dropped the dead connection: the next statement works
      expect(await db.$queryRawUnsafe<{ n: number }[]>('SELECT 1::int AS n')).toEqual([{ n: 1 }]);
    } finally {
      await db.$disconnect();
      await t.drop();
    }
  });
});
