import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_BYTES, latestCheckpointFiles, storeCheckpoint } from '../src/index.js';
import { databaseWithRun, type TestRun } from '../src/testing.js';

/** Bytes that differ from position to position (a chunk boundary in the wrong place would show). */
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251);

describe('checkpoint storage', () => {
  let t: TestRun;
  beforeAll(async () => void (t = await databaseWithRun('bandit')));
  afterAll(() => t.close());
  const store = (step: number, files: [string, Uint8Array][]) =>
    storeCheckpoint(
      t.db,
      t.runId,
      step,
      files.map(([kind, b]) => ({ kind, bytes: b, format: kind.endsWith('.json') ? 'json' : 'safetensors' })),
    );

  it('stores every file of a step in one go, multi-chunk and empty ones included, and reads them back byte for byte', async () => {
    const files = new Map([
      ['policy.safetensors', bytes(2 * CHUNK_BYTES + 5, 1)],
      ['tokenizer.json', bytes(700, 2)],
      ['empty.json', new Uint8Array(0)],
      ['state.json', bytes(40, 3)],
    ]);
    const ids = await store(3, [...files]);
    expect(ids).toHaveLength(4);
    expect(await t.db.checkpointChunk.count({ where: { checkpointId: { in: ids } } })).toBe(3 + 1 + 1 + 1);
    const back = await latestCheckpointFiles(t.db, t.runId);
    expect(back!.step).toBe(3);
    expect([...back!.files.keys()].sort()).toEqual([...files.keys()].sort());
    for (const [kind, b] of files) expect(Buffer.compare(back!.files.get(kind)!, b)).toBe(0);
  });

  it('storing a step again replaces its files of the same names and keeps the others', async () => {
    await store(3, [['state.json', bytes(10, 9)]]);
    const rows = await t.db.checkpoint.findMany({ where: { runId: t.runId, step: 3 }, orderBy: { kind: 'asc' } });
    expect(rows.map((r) => r.kind)).toEqual(['empty.json', 'policy.safetensors', 'state.json', 'tokenizer.json']);
    const back = await latestCheckpointFiles(t.db, t.runId);
    expect(Buffer.compare(back!.files.get('state.json')!, bytes(10, 9))).toBe(0);
    expect(rows.find((r) => r.kind === 'state.json')!.format).toBe('json');
  });
});
