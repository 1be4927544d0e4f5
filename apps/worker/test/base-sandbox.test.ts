import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '@starpo/db';
import { freshDatabase, type TestDatabase } from '@starpo/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedBaseDir } from '@starpo/trainer';
import { loadRunBase } from '../src/base-model.js';

/** The error a load gives, with the name it was asked for taken out, so two answers can be compared. */
async function refusal(db: Db, teamId: string, base: string): Promise<string> {
  const e = await loadRunBase(db, teamId, base, 1).then(
    () => null,
    (err: Error) => err,
  );
  expect(e, base).toBeInstanceOf(Error);
  return e!.message.replace(`"${base}"`, '"…"');
}

describe('model.base stays in its sandbox on the worker', () => {
  let t: TestDatabase;
  let db: Db;
  let scratch: string;
  let root: string;
  let outside: string;
  let teamId: string;
  const savedRoots = process.env.MODEL_ROOTS;
  beforeAll(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'starpo-sandbox-'));
    root = path.join(scratch, 'models');
    // before the database package first reads its settings (createDb): it reads MODEL_ROOTS once
    process.env.MODEL_ROOTS = root;
    t = await freshDatabase();
    db = createDb(t.url);
    outside = path.join(scratch, 'private');
    mkdirSync(path.join(root, 'broken'), { recursive: true });
    mkdirSync(outside);
    // a model-looking folder outside the root, reachable from inside it only through a link
    writeFileSync(path.join(outside, 'config.json'), '{"model_type":"qwen2"}');
    symlinkSync(outside, path.join(root, 'escape'));
    writeFileSync(path.join(root, 'broken', 'config.json'), 'SECRET-TOKEN=hunter2 (not JSON)');
    cpSync(shippedBaseDir('starpo-base/sokoban-tiny')!, path.join(root, 'lab', 'sokoban'), { recursive: true });
    teamId = (await db.team.create({ data: { name: 'lab' } })).id;
    const other = await db.team.create({ data: { name: 'rivals' } });
    await db.baseModel.create({ data: { teamId: other.id, name: 'rival-base', architecture: {}, tokenizer: {} } });
  });
  afterAll(async () => {
    process.env.MODEL_ROOTS = savedRoots;
    rmSync(scratch, { recursive: true, force: true });
    await db.$disconnect();
    await t.drop();
  });

  it('refuses folders outside MODEL_ROOTS alike, whether they exist or not', async () => {
    const refused = await refusal(db, teamId, '/no/such/folder');
    expect(refused).toMatch(/is not a shipped base .* or an absolute folder under MODEL_ROOTS/);
    for (const base of ['/etc', outside, `${root}/../private`, 'etc', '../../etc', './models', 'rival-base']) {
      expect(await refusal(db, teamId, base), base).toBe(refused);
    }
  });

  it('under a root: a link out of it, a missing folder and an unreadable model answer alike, quoting no file', async () => {
    const missing = await refusal(db, teamId, path.join(root, 'missing'));
    expect(missing).toBe('model.base "…" could not be loaded as a saved base model or a Hugging Face checkpoint');
    expect(await refusal(db, teamId, path.join(root, 'escape'))).toBe(missing);
    const broken = await refusal(db, teamId, path.join(root, 'broken'));
    expect(broken).toBe(missing);
    expect(broken).not.toMatch(/SECRET|hunter2|config\.json|ENOENT/);
  });

  it('loads a model folder under a root (`..` that stays inside is fine), and the shipped bases', async () => {
    const folder = await loadRunBase(db, teamId, `${root}/lab/../lab/sokoban`, 1);
    expect(folder.sha).toMatch(/^[0-9a-f]{64}$/);
    expect(folder.bundle.tokenizer.vocabSize).toBeGreaterThan(0);
    const shipped = await loadRunBase(db, teamId, 'starpo-base/sokoban-tiny', 1);
    expect(shipped.sha).toBe(folder.sha);
  });
});
