import { insertTrajectories, storeCheckpointFile, upsertMetricPoints, upsertMetrics, type TurnInput } from '@starpo/db';
import { createHash, randomUUID } from 'node:crypto';
import { extract } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherTeamUser, signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

const turn = (index: number, reward: number, over: Partial<TurnInput> = {}): TurnInput => ({
  index,
  observation: `obs ${index}`,
  snapshot: { env: 'sokoban', index },
  rawReply: `<think>t${index}</think><answer>Up</answer>`,
  think: `t${index}`,
  answer: 'Up',
  parsedActions: ['Up'],
  validActions: ['Up'],
  formatOk: true,
  effectiveCount: 1,
  reward,
  done: false,
  promptTokens: 20,
  responseTokens: 8,
  meanLogProb: -1,
  meanEntropy: 0.5,
  ...over,
});

/** supertest parser: the raw body as one Buffer. */
const binary = (r: NodeJS.ReadableStream, cb: (err: Error | null, body: Buffer) => void) => {
  const parts: Buffer[] = [];
  r.on('data', (c: Buffer) => parts.push(c));
  r.on('end', () => cb(null, Buffer.concat(parts)));
};

/** A tar's files by name, in archive order. */
async function untar(tar: Buffer): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const ex = extract();
  const done = (async () => {
    for await (const entry of ex) {
      const parts: Buffer[] = [];
      for await (const c of entry) parts.push(c as Buffer);
      out.set(entry.header.name, Buffer.concat(parts));
    }
  })();
  ex.end(tar);
  await done;
  return out;
}

describe('metrics, trajectories, checkpoints, workers and ingestion', () => {
  let t: TestApi;
  let owner: TestUser;
  let runId: string;
  const get = (path: string) => t.http.get(path).set('Authorization', owner.auth);
  const post = (path: string, body?: object) => t.http.post(path).set('Authorization', owner.auth).send(body);
  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
    runId = (await post('/api/runs', { preset: 'quick-cpu', config: { env: { name: 'sokoban' } } }).expect(201)).body.id;
    for (let step = 1; step <= 3; step++) {
      await insertTrajectories(
        t.db,
        runId,
        [0, 1].flatMap((group) =>
          [0, 1].map((i) => ({
            step,
            split: 'train' as const,
            group,
            indexInGroup: i,
            seed: step * 10 + group,
            env: 'sokoban',
            success: i === 1,
            totalReward: i === 1 ? 10.5 : -0.3,
            numActions: 3,
            keptByFilter: group === 0,
            flags: i === 1 && group === 1 ? ['think-answer-mismatch'] : [],
            turns: [turn(0, -0.1), turn(1, i === 1 ? 10.6 : -0.2, { done: true })],
          })),
        ),
      );
    }
  });
  afterAll(() => t.close());

  it('lists trajectories with filters and cursor pages, and replays one with all turns', async () => {
    const all = await get(`/api/runs/${runId}/trajectories?limit=5`).expect(200);
    expect(all.body.items).toHaveLength(5);
    const rest = await get(`/api/runs/${runId}/trajectories?limit=50&cursor=${all.body.nextCursor}`).expect(200);
    expect(rest.body.items).toHaveLength(7);
    expect(rest.body.nextCursor).toBeNull();
    const ids = new Set([...all.body.items, ...rest.body.items].map((x: { id: string }) => x.id));
    expect(ids.size).toBe(12);
    // newest steps first, and the cursor pages on in that order
    const newest = await get(`/api/runs/${runId}/trajectories?limit=5&order=desc`).expect(200);
    const older = await get(`/api/runs/${runId}/trajectories?limit=50&order=desc&cursor=${newest.body.nextCursor}`).expect(200);
    const steps = [...newest.body.items, ...older.body.items].map((x: { step: number }) => x.step);
    expect(steps).toHaveLength(12);
    expect(steps).toEqual([...steps].sort((a, b) => b - a));
    expect(steps[0]).toBeGreaterThan(steps.at(-1)!);

    const wins = await get(`/api/runs/${runId}/trajectories?success=true&from=2&to=3&minReward=10`).expect(200);
    expect(wins.body.items.map((x: { step: number; success: boolean }) => [x.step, x.success])).toEqual([
      [2, true],
      [2, true],
      [3, true],
      [3, true],
    ]);
    const flagged = await get(`/api/runs/${runId}/trajectories?flag=think-answer-mismatch&group=1`).expect(200);
    expect(flagged.body.items).toHaveLength(3);

    const one = await get(`/api/trajectories/${wins.body.items[0].id}`).expect(200);
    expect(one.body.turns.map((u: { index: number; stateSnapshot: unknown }) => [u.index, u.stateSnapshot])).toEqual([
      [0, { env: 'sokoban', index: 0 }],
      [1, { env: 'sokoban', index: 1 }],
    ]);
    expect(one.body.turns[0]).toMatchObject({ rawReply: '<think>t0</think><answer>Up</answer>', think: 't0', answer: 'Up', reward: -0.1 });

    await get(`/api/runs/${runId}/trajectories?success=maybe`).expect(400);
    expect((await get(`/api/runs/${runId}/trajectories?cursor=zzz`).expect(400)).body.details[0].path).toBe('cursor');
    await get('/api/trajectories/00000000-0000-0000-0000-000000000000').expect(404);
    const rival = await otherTeamUser(t);
    await t.http.get(`/api/trajectories/${one.body.id}`).set('Authorization', rival.auth).expect(404);
  });

  it('summarises reasoning diagnostics: flag counts and the most frequent contradicted claims with example turns', async () => {
    const run = (await post('/api/runs', { preset: 'quick-cpu', config: { env: { name: 'sokoban' } } }).expect(201)).body.id;
    const claim = (pattern: string, verdict: string, evidence?: string) => ({
      kind: 'position',
      pattern,
      text: `${pattern} claim`,
      span: [0, 5],
      negated: false,
      verdict,
      evidence,
    });
    const diagnosed = (claims: object[]) => ({
      v: 1,
      claims,
      contradicted: claims.filter((c) => (c as { verdict: string }).verdict === 'contradicted').length,
    });
    for (let step = 1; step <= 4; step++) {
      const at = (indexInGroup: number, flags: string[], turns: TurnInput[]) => ({
        step,
        split: 'train' as const,
        group: 0,
        indexInGroup,
        seed: 1,
        env: 'sokoban',
        success: false,
        totalReward: 0,
        numActions: 1,
        keptByFilter: null,
        hallucinated: flags.includes('hallucinated'),
        flags,
        turns,
      });
      await insertTrajectories(t.db, run, [
        at(
          0,
          ['hallucinated', 'outcome_mismatch'],
          [
            turn(0, 0, {
              diagnostics: diagnosed([
                claim('box position', 'contradicted', 'box is at (3, 2), not (2, 2)'),
                claim('player position', 'supported'),
              ]),
            }),
            turn(1, 0, { diagnostics: diagnosed([claim('box position', 'contradicted', 'box is at (3, 3), not (1, 1)')]) }),
          ],
        ),
        at(1, step % 2 === 0 ? ['hallucinated'] : [], [
          turn(0, 0, {
            diagnostics: diagnosed(step % 2 === 0 ? [claim('hole right of player', 'contradicted', 'holes next to the player: none')] : []),
          }),
        ]),
      ]);
    }
    const all = await get(`/api/runs/${run}/diagnostics`).expect(200);
    expect(all.body).toMatchObject({ trajectories: 8, flags: { hallucinated: 6, outcome_mismatch: 4 } });
    expect(all.body.contradicted.map((c: { pattern: string; count: number }) => [c.pattern, c.count])).toEqual([
      ['box position', 8],
      ['hole right of player', 2],
    ]);
    expect(all.body.contradicted[0].examples).toHaveLength(3);
    expect(all.body.contradicted[0].examples[0]).toMatchObject({ step: 4, split: 'train', text: 'box position claim' });
    const trajectory = await get(`/api/trajectories/${all.body.contradicted[0].examples[0].trajectoryId}`).expect(200);
    expect(trajectory.body.hallucinated).toBe(true);

    const early = await get(`/api/runs/${run}/diagnostics?from=1&to=2&limit=1&examples=1`).expect(200);
    expect(early.body).toMatchObject({ from: 1, to: 2, trajectories: 4, flags: { hallucinated: 3 } });
    expect(early.body.contradicted).toEqual([{ pattern: 'box position', count: 4, examples: [expect.objectContaining({ step: 2 })] }]);
    // every stored trajectory is a training one: the split filter keeps all of it, or none
    const train = await get(`/api/runs/${run}/diagnostics?split=train`).expect(200);
    expect(train.body.contradicted).toEqual(all.body.contradicted);
    const val = await get(`/api/runs/${run}/diagnostics?split=val`).expect(200);
    expect(val.body).toMatchObject({ trajectories: 0, flags: {}, contradicted: [] });
    const hallucinated = await get(`/api/runs/${run}/trajectories?hallucinated=true&from=3&to=4`).expect(200);
    expect(hallucinated.body.items).toHaveLength(3);

    expect((await get(`/api/runs/${run}/diagnostics?limit=0`).expect(400)).body.details[0].path).toBe('limit');
    const rival = await otherTeamUser(t);
    await t.http.get(`/api/runs/${run}/diagnostics`).set('Authorization', rival.auth).expect(404);
  });

  it('exports trajectories with their turns as JSONL', async () => {
    const res = await get(`/api/runs/${runId}/trajectories.jsonl?split=train`)
      .buffer(true)
      .parse((r, cb) => {
        let s = '';
        r.on('data', (c: Buffer) => (s += c.toString()));
        r.on('end', () => cb(null, s));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/x-ndjson/);
    const lines = (res.body as string)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(12);
    expect(lines[0].turns).toHaveLength(2);
    expect(lines.map((l: { step: number }) => l.step)).toEqual([1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
  });

  it('serves many runs’ metrics with downsampling that keeps extremes, and CSV', async () => {
    const other = (await post('/api/runs', { preset: 'quick-cpu' }).expect(201)).body.id;
    for (let s = 1; s <= 100; s++) {
      await upsertMetrics(t.db, runId, s, { 'train/reward/mean': s === 37 ? 99 : Math.sin(s) });
      if (s <= 10) await upsertMetrics(t.db, other, s, { 'train/reward/mean': s });
    }
    const res = await get(`/api/metrics?runs=${runId},${other}&keys=train/reward/mean&maxPoints=20`).expect(200);
    const mine = res.body.find((s: { runId: string }) => s.runId === runId);
    expect(mine.points.length).toBeLessThanOrEqual(20);
    expect(mine.points.map((p: { value: number }) => p.value)).toContain(99);
    expect(mine.points[0].step).toBe(1);
    expect(mine.points.at(-1).step).toBe(100);
    expect(res.body.find((s: { runId: string }) => s.runId === other).points).toHaveLength(10);

    const ranged = await get(`/api/runs/${runId}/metrics?keys=train/reward/mean&from=10&to=19`).expect(200);
    expect(ranged.body[0].points.map((p: { step: number }) => p.step)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);

    const csv = await get(`/api/runs/${other}/metrics?format=csv`).expect(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('run_id,key,step,value,time');
    expect(lines).toHaveLength(11);
    expect(lines[3]).toMatch(new RegExp(`^${other},train/reward/mean,3,3,`));

    // the same points as parallel arrays, for one run and for several
    const columns = await get(`/api/metrics?runs=${runId},${other}&keys=train/reward/mean&maxPoints=20&format=columns`).expect(200);
    const mineCols = columns.body.find((c: { runId: string }) => c.runId === runId);
    expect(mineCols.steps).toEqual(mine.points.map((p: { step: number }) => p.step));
    expect(mineCols.values).toEqual(mine.points.map((p: { value: number }) => p.value));
    expect(mineCols.times).toEqual(mine.points.map((p: { time: number }) => p.time));
    const one = await get(`/api/runs/${other}/metrics?format=columns`).expect(200);
    expect(one.body).toEqual([expect.objectContaining({ key: 'train/reward/mean', steps: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })]);
    expect(one.body[0].values).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(one.body[0]).not.toHaveProperty('runId');
    expect((await get(`/api/metrics?runs=${runId}&format=xml`).expect(400)).body.details[0].path).toBe('format');

    expect((await get('/api/metrics?keys=x').expect(400)).body.details[0].path).toBe('runs');
    expect((await get(`/api/metrics?runs=${runId}&maxPoints=2`).expect(400)).body.details[0].path).toBe('maxPoints');
    expect((await get(`/api/metrics?runs=nope`).expect(400)).body.details[0].path).toMatch(/^runs/);
  });

  it('answers repeated whole-history chart reads from its cache, and never a stale one after a write', async () => {
    const id = (await post('/api/runs', { preset: 'quick-cpu' }).expect(201)).body.id;
    // 400 steps: with maxPoints 20 the series is read from its 64-step rollup blocks
    await upsertMetricPoints(
      t.db,
      id,
      Array.from({ length: 400 }, (_, i) => ({ key: 'loss', step: i, value: i % 7 })),
    );
    const values = async () =>
      (await get(`/api/metrics?runs=${id}&maxPoints=20&format=columns`).expect(200)).body[0] as { steps: number[]; values: number[] };
    const first = await values();
    expect(Math.max(...first.values)).toBe(6);
    expect(await values()).toEqual(first); // the cached answer is the same answer

    await upsertMetricPoints(t.db, id, [{ key: 'loss', step: 150, value: 1000 }]); // a corrected step: a new highest point
    expect(Math.max(...(await values()).values)).toBe(1000);
    // corrected back: the block's highest point is recomputed from the points, and the cache follows it
    await upsertMetricPoints(t.db, id, [{ key: 'loss', step: 150, value: 0 }]);
    expect(Math.max(...(await values()).values)).toBe(6);
    await upsertMetricPoints(t.db, id, [{ key: 'loss', step: 400, value: -5 }]); // a new step
    const extended = await values();
    expect(extended.steps.at(-1)).toBe(400);
    expect(Math.min(...extended.values)).toBe(-5);
    await upsertMetricPoints(t.db, id, [{ key: 'acc', step: 1, value: 0.5 }]); // a new key
    expect((await get(`/api/metrics?runs=${id}&maxPoints=20`).expect(200)).body.map((s: { key: string }) => s.key)).toEqual([
      'acc',
      'loss',
    ]);
  });

  it('lists checkpoints and streams a download whose sha256 matches', async () => {
    const bytes = new Uint8Array(20_000).map((_, i) => (i * 7) % 251);
    await storeCheckpointFile(t.db, runId, 2, 'policy.safetensors', bytes, 'safetensors');
    const list = await get(`/api/runs/${runId}/checkpoints`).expect(200);
    expect(list.body[0]).toMatchObject({ step: 2, kind: 'policy.safetensors', sizeBytes: 20_000 });
    const dl = await get(`/api/checkpoints/${list.body[0].id}/download`).buffer(true).parse(binary).expect(200);
    const got = dl.body as Buffer;
    expect(got.byteLength).toBe(20_000);
    expect(createHash('sha256').update(got).digest('hex')).toBe(list.body[0].sha256);
    expect(dl.headers['x-checksum-sha256']).toBe(list.body[0].sha256);
    await get('/api/checkpoints/00000000-0000-0000-0000-000000000000/download').expect(404);
  });

  it('streams one checkpoint step as a tar whose files and SHA256SUMS match the stored bytes', async () => {
    const run = (await post('/api/runs', { preset: 'quick-cpu', config: { env: { name: 'sokoban' } } }).expect(201)).body.id as string;
    const archive = (q = '') => get(`/api/runs/${run}/checkpoints/archive${q}`).buffer(true).parse(binary);
    await get(`/api/runs/${run}/checkpoints/archive`).expect(404);
    // policy, optimizer and state.json (written last: the step is complete); sizes not multiples of 512
    const files: Record<string, Uint8Array> = {
      'policy.safetensors': new Uint8Array(300_001).map((_, i) => (i * 13 + 5) % 256),
      'optimizer.safetensors': new Uint8Array(70_000).map((_, i) => (i * 31) % 253),
      'state.json': new TextEncoder().encode(JSON.stringify({ step: 4 })),
    };
    for (const [name, bytes] of Object.entries(files))
      await storeCheckpointFile(t.db, run, 4, name, bytes, name.endsWith('.json') ? 'json' : 'safetensors');
    await storeCheckpointFile(t.db, run, 6, 'policy.safetensors', files['policy.safetensors']!.subarray(0, 1000), 'safetensors'); // no state.json yet

    const res = await archive().expect(200);
    expect(res.headers['content-type']).toBe('application/x-tar');
    expect(res.headers['content-disposition']).toContain(`${run}-step-4.tar`);
    expect(Number(res.headers['content-length'])).toBe((res.body as Buffer).byteLength);
    const got = await untar(res.body as Buffer);
    expect([...got.keys()]).toEqual([
      'step-4/SHA256SUMS',
      'step-4/optimizer.safetensors',
      'step-4/policy.safetensors',
      'step-4/state.json',
    ]);
    for (const [name, bytes] of Object.entries(files)) expect(Buffer.compare(got.get(`step-4/${name}`)!, Buffer.from(bytes)), name).toBe(0);
    const sums = got.get('step-4/SHA256SUMS')!.toString().trim().split('\n');
    expect(sums).toEqual(
      Object.keys(files)
        .sort()
        .map((name) => `${createHash('sha256').update(files[name]!).digest('hex')}  ${name}`),
    );
    expect([...(await untar((await archive('?step=6').expect(200)).body as Buffer)).keys()]).toEqual([
      'step-6/SHA256SUMS',
      'step-6/policy.safetensors',
    ]);

    expect((await get(`/api/runs/${run}/checkpoints/archive?step=-1`).expect(400)).body.details[0].path).toBe('step');
    expect((await get(`/api/runs/${run}/checkpoints/archive?step=x`).expect(400)).body.details[0].path).toBe('step');
    await get(`/api/runs/${run}/checkpoints/archive?step=5`).expect(404);
    const rival = await otherTeamUser(t);
    await t.http.get(`/api/runs/${run}/checkpoints/archive`).set('Authorization', rival.auth).expect(404);

    // a stored chunk gone bad: the transfer breaks off instead of delivering a corrupt archive
    const ck = await t.db.checkpoint.findFirstOrThrow({ where: { runId: run, step: 4, kind: 'policy.safetensors' } });
    await t.db.checkpointChunk.update({
      where: { checkpointId_index: { checkpointId: ck.id, index: 0 } },
      data: { data: new Uint8Array(300_001).fill(7) },
    });
    const broken = await archive().then(
      (r) => (r.body as Buffer).byteLength,
      () => -1,
    );
    expect(broken).toBeLessThan(Number(res.headers['content-length']));
  });

  it('lists workers without naming another team’s run', async () => {
    const rival = await otherTeamUser(t);
    const theirRun = await t.db.run.create({
      data: { teamId: rival.teamId, name: 'secret', config: {}, environment: 'bandit', algorithm: 'grpo', status: 'running' },
    });
    await t.db.worker.create({
      data: { name: 'w1', host: 'h', backend: 'wasm', device: 'cpu', status: 'busy', currentRunId: theirRun.id },
    });
    await t.db.run.update({ where: { id: theirRun.id }, data: { workerId: (await t.db.worker.findFirstOrThrow()).id } });
    const res = await get('/api/workers').expect(200);
    expect(res.body[0]).toMatchObject({ name: 'w1', backend: 'wasm', status: 'busy', currentRun: { id: null, name: 'another team' } });
    const theirs = await t.http.get('/api/workers').set('Authorization', rival.auth).expect(200);
    expect(theirs.body[0].currentRun).toEqual({ id: theirRun.id, name: 'secret' });

    // no heartbeat for the stale timeout: shown lost, no longer busy with a run
    await t.db.worker.updateMany({ data: { lastHeartbeat: new Date(Date.now() - 120_000) } });
    expect((await get('/api/workers').expect(200)).body[0]).toMatchObject({ name: 'w1', status: 'lost', currentRun: null });
  });

  it('ingests an external run’s metrics and trajectories idempotently, within limits', async () => {
    const ext = (await post('/api/runs', { name: 'elsewhere', external: true, config: { env: { name: 'frozenlake' } } }).expect(201)).body;
    expect(ext).toMatchObject({ kind: 'external', status: 'running' });
    const points = Array.from({ length: 1000 }, (_, i) => ({
      key: i % 2 ? 'train/success' : 'val/success',
      step: Math.floor(i / 2),
      value: i / 1000,
    }));
    expect((await post(`/api/runs/${ext.id}/ingest/metrics`, { points }).expect(200)).body).toEqual({ accepted: 1000 });
    expect((await post(`/api/runs/${ext.id}/ingest/metrics`, { points }).expect(200)).body).toEqual({ accepted: 1000 }); // replayed
    expect(await t.db.metricPoint.count({ where: { runId: ext.id } })).toBe(1000);
    expect((await get(`/api/runs/${ext.id}`).expect(200)).body).toMatchObject({ currentStep: 499, latest: { 'train/success': 0.999 } });

    const tooMany = await post(`/api/runs/${ext.id}/ingest/metrics`, { points: [...points, points[0]] }).expect(400);
    expect(tooMany.body.details[0].path).toBe('points');
    await post(`/api/runs/${ext.id}/ingest/metrics`, { points: [{ key: 'k', step: -1, value: 1 }] }).expect(400);
    await post(`/api/runs/${ext.id}/ingest/metrics`, { points: [{ key: 'k', step: 1, value: 'x' }] }).expect(400);
    await post(`/api/runs/${ext.id}/ingest/metrics`, { points: [{ key: 'k', step: 1, value: 1, extra: true }] }).expect(400);
    await post(`/api/runs/${ext.id}/ingest/metrics`, {
      points: Array.from({ length: 900 }, () => ({ key: 'k'.repeat(199), step: 1, value: 1, pad: 'x'.repeat(1000) })),
    }).expect(413);
    await post(`/api/runs/${runId}/ingest/metrics`, { points: [{ key: 'k', step: 1, value: 1 }] }).expect(409); // a worker's run

    const traj = {
      step: 3,
      success: false,
      turns: [{ observation: 'P_G', rawReply: 'garbage <answer>Left', reward: -0.1, formatOk: false }],
    };
    await post(`/api/runs/${ext.id}/ingest/trajectories`, { trajectories: [traj] }).expect(200);
    await post(`/api/runs/${ext.id}/ingest/trajectories`, { trajectories: [traj] }).expect(200);
    const stored = await get(`/api/runs/${ext.id}/trajectories`).expect(200);
    expect(stored.body.items).toHaveLength(1);
    const replay = await get(`/api/trajectories/${stored.body.items[0].id}`).expect(200);
    expect(replay.body.turns[0]).toMatchObject({ rawReply: 'garbage <answer>Left', formatOk: false });

    const rival = await otherTeamUser(t);
    await t.http
      .post(`/api/runs/${ext.id}/ingest/metrics`)
      .set('Authorization', rival.auth)
      .send({ points: [{ key: 'k', step: 900, value: 1 }] })
      .expect(404); // another team's run is no run at all
    expect((await post(`/api/runs/${ext.id}/ingest/finish`, { status: 'succeeded' }).expect(200)).body.status).toBe('succeeded');
    await post(`/api/runs/${ext.id}/ingest/metrics`, { points: [{ key: 'k', step: 1, value: 1 }] }).expect(409);
    await post(`/api/runs/${randomUUID()}/ingest/metrics`, { points: [{ key: 'k', step: 1, value: 1 }] }).expect(404);
    await post('/api/runs/not-a-run/ingest/metrics', { points: [{ key: 'k', step: 1, value: 1 }] }).expect(404);
    // a refused write stores nothing and leaves the run as it was
    expect(await t.db.metricPoint.count({ where: { runId: ext.id } })).toBe(1000);
    expect(await t.db.metricPoint.count({ where: { runId, key: 'k' } })).toBe(0);
    expect((await get(`/api/runs/${ext.id}`).expect(200)).body).toMatchObject({ status: 'succeeded', currentStep: 499 });
  });
});
