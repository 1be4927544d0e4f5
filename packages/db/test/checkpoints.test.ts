import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_BYTES, latestCheckpointFiles, storeCheckpoint, type Db } from '../src/index.js';
import { databaseWithRun, type TestRun } from '../src/testing.js';

/** Bytes that differ from position to position (a chunk boundary in the wrong place would show). */
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251);

describe('checkpoint storage', () => {
  let fixture: TestRun;
  let db: Db;
  let runId: string;
  beforeAll(async () => {
    fixture = await databaseWithRun('bandit');
    ({ db, runId } = fixture);
  });
  afterAll(() => fixture.close());

  it('stores every file of a step in one go, multi-chunk and empty ones included, and reads them back byte for byte', async () => {
    const files = new Map([
      ['policy.safetensors', bytes(2 * CHUNK_BYTES + 5, 1)],
      ['tokenizer.json', bytes(700, 2)],
      ['empty.json', new Uint8Array(0)],
      ['state.json', bytes(40, 3)],
    ]);
    const ids = await storeCheckpoint(
      db,
      runId,
      3,
      [...files].map(([kind, b]) => ({ kind, bytes: b })),
    );
    expect(ids).toHaveLength(4);
    expect(await db.checkpointChunk.count({ where: { checkpointId: { in: ids } } })).toBe(3 + 1 + 1 + 1);
    const back = await latestCheckpointFiles(db, runId);
    expect(back!.step).toBe(3);
    expect([...back!.files.keys()].sort()).toEqual([...files.keys()].sort());
    for (const [kind, b] of files) expect(Buffer.compare(back!.files.get(kind)!, b)).toBe(0);
  });

  it('storing a step again replaces its files of the same names and keeps the others', async () => {
    await storeCheckpoint(db, runId, 3, [{ kind: 'state.json', bytes: bytes(10, 9), format: 'json' }]);
    const rows = await db.checkpoint.findMany({ where: { runId, step: 3 }, orderBy: { kind: 'asc' } });
    expect(rows.map((r) => r.kind)).toEqual(['empty.json', 'policy.safetensors', 'state.json', 'tokenizer.json']);
    const back = await latestCheckpointFiles(db, runId);
    expect(Buffer.compare(back!.files.get('state.json')!, bytes(10, 9))).toBe(0);
    expect(rows.find((r) => r.kind === 'state.json')!.format).toBe('json');
  });
});
