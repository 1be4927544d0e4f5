import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downsampledSeries, upsertMetricPoints, upsertMetrics, type Db } from '../src/index.js';
import { databaseWithRun, type TestRun } from '../src/testing.js';

describe('metric rollups and downsampling', () => {
  let fixture: TestRun;
  let db: Db;
  let runId: string;
  beforeAll(async () => {
    fixture = await databaseWithRun('bandit');
    ({ db, runId } = fixture);
  });
  afterAll(() => fixture.close());

  /** The rollup blocks recomputed from scratch from the points. */
  const fromPoints = () =>
    db.$queryRawUnsafe<object[]>(
      `SELECT key, step >> 6 AS bucket, count(*)::int AS n, min(step) AS first_step, max(step) AS last_step,
              min(value) AS min_value, max(value) AS max_value FROM metric_points WHERE run_id = $1::uuid GROUP BY 1, 2 ORDER BY 1, 2`,
      runId,
    );
  const stored = () =>
    db.$queryRawUnsafe<object[]>(
      `SELECT key, bucket, n, first_step, last_step, min_value, max_value FROM metric_blocks WHERE run_id = $1::uuid ORDER BY 1, 2`,
      runId,
    );

  it('keep each 64-step block’s first, last, lowest and highest point through appends, batches and re-writes', async () => {
    const wave = (s: number) => Math.sin(s / 50) * 10 + (s % 7);
    // a trainer's way: one step at a time, two keys
    for (let s = 0; s < 150; s++) await upsertMetrics(db, runId, s, { a: wave(s), b: -wave(s) });
    // an importer's way: big batches, out of order
    const late = Array.from({ length: 2000 }, (_, i) => ({ key: 'a', step: 2149 - i, value: wave(2149 - i) }));
    await upsertMetricPoints(db, runId, late);
    expect(await stored()).toEqual(await fromPoints());
    // a re-write lowers one point far below everything, then restores it: the block must forget the old extreme
    await upsertMetricPoints(db, runId, [{ key: 'a', step: 70, value: -1000 }]);
    expect(await stored()).toEqual(await fromPoints());
    await upsertMetricPoints(db, runId, [{ key: 'a', step: 70, value: wave(70) }]);
    expect(await stored()).toEqual(await fromPoints());
  });

  it('concurrent writers of the same keys and blocks neither deadlock nor lose a point', async () => {
    const batch = (w: number) =>
      Array.from({ length: 600 }, (_, i) => ({ key: `c${i % 6}`, step: 5000 + ((i * 7 + w * 13) % 300), value: w * 1000 + i }));
    await Promise.all(Array.from({ length: 6 }, (_, w) => upsertMetricPoints(db, runId, batch(w))));
    expect(await stored()).toEqual(await fromPoints());
    // every key+step any writer sent is stored, once, with one of the values sent for it
    const sent = new Map<string, Set<number>>();
    for (let w = 0; w < 6; w++)
      for (const p of batch(w)) sent.set(`${p.key} ${p.step}`, (sent.get(`${p.key} ${p.step}`) ?? new Set()).add(p.value));
    const rows = await db.$queryRawUnsafe<{ key: string; step: number; value: number }[]>(
      `SELECT key, step, value FROM metric_points WHERE run_id = $1::uuid AND key LIKE 'c%'`,
      runId,
    );
    expect(rows).toHaveLength(sent.size);
    for (const r of rows) expect(sent.get(`${r.key} ${r.step}`)?.has(r.value)).toBe(true);
  });

  it('downsample long series from the rollups with the same extremes, ends and bounds as from the points', async () => {
    // 80 points = 20 buckets of ~107 steps: each spans a 64-step block, so the whole history reads the rollups
    const fast = await downsampledSeries(db, [runId], ['a'], null, null, 80);
    const slow = await downsampledSeries(db, [runId], ['a'], 0, 1_000_000, 80); // a step range reads the points
    for (const [series] of [fast, slow]) {
      const values = series!.points.map((p) => p.value);
      expect(series!.points.length).toBeLessThanOrEqual(80);
      expect(series!.points[0]!.step).toBe(0);
      expect(series!.points.at(-1)!.step).toBe(2149);
      expect(Math.min(...values)).toBeCloseTo(Math.min(...Array.from({ length: 2150 }, (_, s) => Math.sin(s / 50) * 10 + (s % 7))));
      expect(Math.max(...values)).toBeCloseTo(Math.max(...Array.from({ length: 2150 }, (_, s) => Math.sin(s / 50) * 10 + (s % 7))));
      expect(series!.points.every((p, i, all) => i === 0 || p.step > all[i - 1]!.step)).toBe(true);
    }
    // a short series comes back whole, whichever way
    const short = await downsampledSeries(db, [runId], ['b'], null, null, 400);
    expect(short[0]!.points).toHaveLength(150);
  });

  it('a whole-history view of long and short series together, across runs, reads each its own way and loses none', async () => {
    // 'a' spans 2,150 steps (long: its rollup blocks), 'b' and 'c0'…'c5' span ≤ 300 (short: their points)
    const whole = await downsampledSeries(db, [runId], null, null, null, 80);
    const ranged = await downsampledSeries(db, [runId], null, 0, 1_000_000, 80); // every series from its points
    expect(whole.map((s) => s.key)).toEqual(ranged.map((s) => s.key));
    expect(whole.map((s) => s.key)).toEqual(['a', 'b', 'c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    for (const [i, s] of whole.entries()) if (s.key !== 'a') expect(s.points).toEqual(ranged[i]!.points);
    // a run without metrics next to this one adds nothing and hides nothing
    const { teamId } = await db.run.findUniqueOrThrow({ where: { id: runId } });
    const empty = await db.run.create({
      data: { teamId, name: 'empty', config: {}, environment: 'bandit', algorithm: 'grpo', totalSteps: 1 },
    });
    expect(await downsampledSeries(db, [empty.id, runId], null, null, null, 80)).toEqual(whole);
    expect(await downsampledSeries(db, [empty.id], null, null, null, 80)).toEqual([]);
  });

  it('a replayed batch stores nothing twice, and points for a missing run are refused', async () => {
    const batch = Array.from({ length: 1000 }, (_, i) => ({
      key: `r${i % 10}`,
      step: 9000 + Math.floor(i / 10),
      value: i,
      time: new Date(1_700_000_000_000 + i),
    }));
    const snapshot = async () => ({
      points: await db.$queryRawUnsafe<object[]>(
        `SELECT key, step, value, wall_time FROM metric_points WHERE run_id = $1::uuid AND key LIKE 'r%' ORDER BY 1, 2`,
        runId,
      ),
      rollups: await stored(),
      summaries: await db.metricSummary.findMany({ where: { runId, key: { startsWith: 'r' } }, orderBy: { key: 'asc' } }),
    });
    await upsertMetricPoints(db, runId, batch);
    const once = await snapshot();
    expect(once.points).toHaveLength(1000);
    expect((once.points[0] as { wall_time: Date }).wall_time.getTime()).toBe(1_700_000_000_000);
    await upsertMetricPoints(db, runId, batch);
    await Promise.all([upsertMetricPoints(db, runId, batch), upsertMetricPoints(db, runId, batch.slice(500))]);
    const replayed = await snapshot();
    expect(replayed.points).toEqual(once.points);
    expect(replayed.rollups).toEqual(once.rollups);
    expect(replayed.summaries.map(({ updatedAt: _, ...s }) => s)).toEqual(once.summaries.map(({ updatedAt: _, ...s }) => s));
    await expect(upsertMetricPoints(db, '00000000-0000-4000-8000-000000000000', batch)).rejects.toThrow(/does not exist/);
  });
});
