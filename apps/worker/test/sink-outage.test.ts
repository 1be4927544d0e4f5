import { createDb, migrate, type Db } from '@starpo/db';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '@starpo/db/embedded';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbSink } from '../src/db-sink.js';

describe('database sink through an outage', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-sink-outage-'));
  chmodSync(dir, 0o755);
  let pg: EmbeddedDatabase;
  let db: Db;
  let runId: string;
  const start = (port?: number) => startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), port });

  beforeAll(async () => {
    pg = await start();
    await migrate(pg.url);
    db = createDb(pg.url);
    const team = await db.team.create({ data: { name: 'lab' } });
    runId = (
      await db.run.create({ data: { teamId: team.id, name: 'r', config: {}, environment: 'bandit', algorithm: 'grpo', status: 'running' } })
    ).id;
  });
  afterAll(async () => {
    await db?.$disconnect().catch(() => {});
    await pg?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps buffered metric points while the database is away and writes them all when it returns', async () => {
    const sink = new DbSink(db, runId);
    await sink.metrics(1, { 'train/success': 0.1 });
    await sink.flush();
    await pg.stop();
    for (let step = 2; step <= 6; step++) await sink.metrics(step, { 'train/success': step / 10, 'train/entropy': 1 / step });
    const flushed = sink.flush();
    await new Promise((r) => setTimeout(r, 1500));
    pg = await start(pg.port);
    await flushed;
    await sink.status({ status: 'succeeded', step: 6, totalSteps: 6 });
    const points = await db.metricPoint.findMany({ where: { runId, key: 'train/success' }, orderBy: { step: 'asc' } });
    expect(points.map((p) => [p.step, p.value])).toEqual([
      [1, 0.1],
      [2, 0.2],
      [3, 0.3],
      [4, 0.4],
      [5, 0.5],
      [6, 0.6],
    ]);
    expect(await db.metricPoint.count({ where: { runId, key: 'train/entropy' } })).toBe(5);
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('succeeded');
  });

  it('retries through a crash of the server (SIGKILL) and its restart: every write lands, none fails the run', async () => {
    const team = await db.team.findFirstOrThrow();
    const run = await db.run.create({
      data: { teamId: team.id, name: 'crash', config: {}, environment: 'bandit', algorithm: 'grpo', status: 'running', leaseEpoch: 1 },
    });
    const sink = new DbSink(db, run.id, 1);
    const steps = 12;
    // the writes of a training loop, step after step, while the server is killed and restarted under them
    const writes = (async () => {
      for (let step = 1; step <= steps; step++) {
        await sink.metrics(step, { 'train/success': step / 100 });
        await sink.checkpoint({ step, files: new Map([['state.json', new TextEncoder().encode(JSON.stringify({ step }))]]) });
        await sink.log('info', `step ${step} done`);
        await sink.status({ status: 'running', step, totalSteps: steps });
        await new Promise((r) => setTimeout(r, 150));
      }
    })();
    writes.catch(() => {}); // awaited below, after the restart
    await new Promise((r) => setTimeout(r, 600));
    const exited = pg.exited;
    process.kill(pg.pid!, 'SIGKILL');
    await exited;
    await new Promise((r) => setTimeout(r, 500));
    // orphaned backends may hold the shared memory a moment: try again, as npm start's supervisor does
    for (let attempt = 1; ; attempt++) {
      try {
        pg = await start(pg.port);
        break;
      } catch (e) {
        if (attempt >= 10) throw e;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    await writes;
    await sink.flush();
    const points = await db.metricPoint.findMany({ where: { runId: run.id, key: 'train/success' }, orderBy: { step: 'asc' } });
    expect(points.map((p) => p.step)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
    expect(await db.checkpoint.count({ where: { runId: run.id, kind: 'state.json' } })).toBe(steps);
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).currentStep).toBe(steps);
  });
});
