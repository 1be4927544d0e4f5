import { createDb, type Db } from '@starpo/db';
import { freshDatabase, type TestDatabase } from '@starpo/db/testing';
import { initBackend } from '@starpo/trainer';
import { afterAll, beforeAll } from 'vitest';

/** A fresh database and the wasm backend for the enclosing describe block; `db()` is its client once it is up. */
export function useWorkerDatabase(): () => Db {
  let t: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    await initBackend('wasm');
    t = await freshDatabase();
    db = createDb(t.url);
  });
  afterAll(async () => {
    await db.$disconnect();
    await t.drop();
  });
  return () => db;
}
