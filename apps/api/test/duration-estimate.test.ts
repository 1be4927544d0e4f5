import { upsertMetricPoints } from '@starpo/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

/** quick-cpu's reply budget: 32 groups × 2 rollouts × 96 tokens a step, 64 episodes × 96 tokens a validation. */
const STEP_TOKENS = 32 * 2 * 96;
const VALIDATION_TOKENS = 64 * 96;
const perK = (seconds: number, tokens: number) => (seconds * 1000) / tokens;

describe('GET /api/duration-estimate: measured on the online workers, else by the last finished runs, else the fixed figure', () => {
  let t: TestApi;
  let owner: TestUser;
  const post = (path: string, body?: object) => t.http.post(path).set('Authorization', owner.auth).send(body);
  const estimate = (query: string) => t.http.get(`/api/duration-estimate?${query}`).set('Authorization', owner.auth);
  let minutesAgo = 100;

  /** A quick-cpu (or other preset) run trained by `workerId`, finished or not, with timed steps and validations. */
  async function timedRun(o: { workerId: string; steps: number[]; validations?: number[]; preset?: string; finished?: boolean }) {
    const run = (await post('/api/runs', { preset: o.preset ?? 'quick-cpu' }).expect(201)).body;
    await t.db.run.update({
      where: { id: run.id },
      data: {
        workerId: o.workerId,
        status: o.finished === false ? 'running' : 'succeeded',
        finishedAt: o.finished === false ? null : new Date(Date.now() - 60_000 * minutesAgo--),
      },
    });
    await upsertMetricPoints(t.db, run.id, [
      ...o.steps.map((value, i) => ({ key: 'timing_s/step', step: i + 1, value })),
      ...(o.validations ?? []).map((value, i) => ({ key: 'timing_s/testing', step: 5 * i, value })),
      { key: 'train/success', step: 1, value: 0.5 },
    ]);
    return run.id as string;
  }
  const worker = async (name: string, o: { host: string; engine: string; online: boolean }) =>
    (
      await t.db.worker.create({
        data: {
          name,
          host: o.host,
          backend: 'wasm',
          engine: o.engine,
          device: 'cpu',
          status: o.online ? 'idle' : 'offline',
          lastHeartbeat: new Date(Date.now() - (o.online ? 0 : 3_600_000)),
        },
      })
    ).id;

  beforeAll(async () => {
    t = await startTestApi({ workerStaleMs: 60_000 });
    owner = await signupOwner(t);
  });
  afterAll(() => t.close());

  it('refuses a missing or unknown preset in the error shape', async () => {
    for (const q of ['', 'preset=nope']) {
      const res = await estimate(q).expect(400);
      expect(res.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      expect(res.body.details[0].path).toBe('preset');
    }
  });

  it('says it is a rough guess before anything was measured', async () => {
    const res = await estimate('preset=quick-cpu').expect(200);
    expect(res.body).toEqual({
      preset: 'quick-cpu',
      source: 'static',
      stepSecondsPer1k: 2.4,
      validationSecondsPer1k: 2.4,
      steps: 0,
      runs: 0,
      workers: [],
      slowWorkers: [],
    });
  });

  it('takes the median of the last 3 finished runs of the preset, whichever worker ran them', async () => {
    const gone = await worker('gone', { host: 'old-box', engine: 'openblas', online: false });
    await timedRun({ workerId: gone, steps: [900, 900, 900] }); // the oldest: left out
    await timedRun({ workerId: gone, steps: [30, 31], validations: [40] });
    await timedRun({ workerId: gone, steps: [32, 33], validations: [44, 48] });
    await timedRun({ workerId: gone, steps: [34, 35, 36] });
    await timedRun({ workerId: gone, steps: [1, 1, 1, 1], preset: 'starpo-ppo' }); // another preset
    await timedRun({ workerId: gone, steps: [500], finished: false }); // still running: not a finished run
    const res = await estimate('preset=quick-cpu').expect(200);
    expect(res.body).toMatchObject({ source: 'runs', runs: 3, steps: 7, workers: ['gone'], slowWorkers: [] });
    expect(res.body.stepSecondsPer1k).toBeCloseTo(perK(33, STEP_TOKENS), 9);
    expect(res.body.validationSecondsPer1k).toBeCloseTo(perK(44, VALIDATION_TOKENS), 9);
    // another base: none of these runs
    expect((await estimate('preset=quick-cpu&base=starpo-base/frozenlake-tiny').expect(200)).body.source).toBe('static');
  });

  it("prefers the recent steps on an online worker's machine and engine, and names a slow engine", async () => {
    const online = await worker('box-2', { host: 'box', engine: 'tfjs', online: true });
    const before = await worker('box-1', { host: 'box', engine: 'tfjs', online: false }); // the same machine before a restart
    const otherEngine = await worker('box-0', { host: 'box', engine: 'openblas', online: false });
    await timedRun({ workerId: before, steps: [120, 130, 140], validations: [200] });
    await timedRun({ workerId: online, steps: [150, 160], finished: false });
    await timedRun({ workerId: otherEngine, steps: [10, 10, 10, 10, 10, 10] }); // not what this machine runs now
    const res = await estimate('preset=quick-cpu').expect(200);
    expect(res.body).toMatchObject({ source: 'workers', runs: 2, steps: 5, workers: ['box-1', 'box-2'], slowWorkers: ['box-2'] });
    expect(res.body.stepSecondsPer1k).toBeCloseTo(perK(140, STEP_TOKENS), 9);
    expect(res.body.validationSecondsPer1k).toBeCloseTo(perK(200, VALIDATION_TOKENS), 9);

    // the worker goes quiet: the last finished runs again
    await t.db.worker.update({ where: { id: online }, data: { lastHeartbeat: new Date(Date.now() - 120_000) } });
    expect((await estimate('preset=quick-cpu').expect(200)).body).toMatchObject({ source: 'runs', slowWorkers: [] });
  });

  it('GET /api/workers reports each worker’s engine and flags the slow one', async () => {
    const res = await t.http.get('/api/workers').set('Authorization', owner.auth).expect(200);
    const byName = Object.fromEntries((res.body as { name: string; engine: string; slowEngine: boolean }[]).map((w) => [w.name, w]));
    expect(byName['box-2']).toMatchObject({ engine: 'tfjs', slowEngine: true });
    expect(byName['box-0']).toMatchObject({ engine: 'openblas', slowEngine: false });
  });
});
