import type { RunProgress } from '@starpo/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

describe('what a run is doing, over REST: logs, warnings, progress, queue position', () => {
  let t: TestApi;
  let owner: TestUser;
  const post = (path: string, body?: object) => t.http.post(path).set('Authorization', owner.auth).send(body);
  const get = (path: string) => t.http.get(path).set('Authorization', owner.auth);
  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
  });
  afterAll(() => t.close());

  it('GET /api/runs/:id/logs returns the log lines in order, with warning codes; ?warnings=1 only the warnings; after= tails', async () => {
    const run = (await post('/api/runs', { preset: 'quick-cpu' }).expect(201)).body;
    expect(run.config.model.base).toBe('starpo-base/sokoban-tiny');
    // the rows the worker's sink writes
    const lines = [
      {
        level: 'info',
        message: 'run started on worker w-1: backend wasm (wasm SIMD), 2 compute thread(s); base starpo-base/sokoban-tiny sha256 ab12',
      },
      { level: 'info', message: 'step 0: validation started (64 episodes)' },
      { level: 'warn', code: 'zero_grad_norm', message: "[zero_grad_norm] step 1: The actor's gradient norm was 0" },
      { level: 'info', message: 'step 1/80 · success 0.27 · reward 0.120' },
      { level: 'error', message: 'Error: out of memory\n    at actorStep (update.ts:10)' },
    ];
    for (const l of lines) await t.db.runLog.create({ data: { runId: run.id, ...l } });

    const all = (await get(`/api/runs/${run.id}/logs`).expect(200)).body as {
      id: string;
      level: string;
      code: string | null;
      message: string;
    }[];
    expect(all.map((l) => l.message)).toEqual(lines.map((l) => l.message));
    expect(all[2]).toMatchObject({ level: 'warn', code: 'zero_grad_norm' });
    expect(all[0]!.code).toBeNull();
    const warnings = (await get(`/api/runs/${run.id}/logs?warnings=1`).expect(200)).body;
    expect(warnings.map((l: { code: string }) => l.code)).toEqual(['zero_grad_norm']);
    const tail = (await get(`/api/runs/${run.id}/logs?after=${all[2]!.id}`).expect(200)).body;
    expect(tail.map((l: { message: string }) => l.message)).toEqual(lines.slice(3).map((l) => l.message));
    await get('/api/runs/00000000-0000-0000-0000-000000000000/logs').expect(404);

    // the warning codes come with the run and in the runs list
    expect((await get(`/api/runs/${run.id}`).expect(200)).body.warnings).toEqual(['zero_grad_norm']);
    const listed = (await get('/api/runs').expect(200)).body.items.find((r: { id: string }) => r.id === run.id);
    expect(listed.warnings).toEqual(['zero_grad_norm']);
  });

  it('a running run carries its phase progress; a queued one its place in the queue', async () => {
    await t.db.run.updateMany({ where: { status: 'queued' }, data: { status: 'cancelled' } });
    const a = (await post('/api/runs', { preset: 'quick-cpu', name: 'a' }).expect(201)).body;
    const b = (await post('/api/runs', { preset: 'quick-cpu', name: 'b' }).expect(201)).body;
    expect(a.queuePosition).toBe(1);
    expect(b.queuePosition).toBe(2);
    expect(b.progress).toBeNull();

    const progress: RunProgress = {
      phase: 'validation',
      step: 0,
      done: 23,
      total: 64,
      unit: 'episodes',
      startedAt: Date.now() - 5000,
      at: Date.now(),
      stepStartedAt: null,
      stepSeconds: null,
      validationSeconds: null,
    };
    await t.db.run.update({ where: { id: a.id }, data: { status: 'running', startedAt: new Date(), progress: progress as object } });
    expect((await get(`/api/runs/${a.id}`).expect(200)).body).toMatchObject({ status: 'running', progress, queuePosition: null });
    expect((await get(`/api/runs/${b.id}`).expect(200)).body.queuePosition).toBe(1);
    // a finished run shows no stale progress
    await t.db.run.update({ where: { id: a.id }, data: { status: 'succeeded' } });
    expect((await get(`/api/runs/${a.id}`).expect(200)).body.progress).toBeNull();
  });
});
