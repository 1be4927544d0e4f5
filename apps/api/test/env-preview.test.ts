import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

// Every value inside the field bounds; this preview once held the event loop for 49 s.
const HEAVY = { rows: 16, cols: 16, numBoxes: 4, searchDepth: 1000, maxExploredStates: 1_000_000 };
// The largest 16×16 search the schema admits: 0.5 s of generation on average, up to 2 s, on a busy 2-core machine.
const LARGEST = { ...HEAVY, maxExploredStates: 15_625 };

/** Real HTTP on a listening port, timed: concurrency needs requests the event loop must interleave. */
async function timed(base: string, path: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await fetch(base + path, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: performance.now() - started };
}

async function listen(t: TestApi): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
}

const previewPath = (config: object, seed = 1) =>
  `/api/envs/sokoban/preview?seed=${seed}&config=${encodeURIComponent(JSON.stringify(config))}`;

describe('environment previews never hold the event loop', () => {
  let t: TestApi;
  let base: string;
  let owner: TestUser;
  beforeAll(async () => {
    t = await startTestApi();
    base = await listen(t);
    owner = await signupOwner(t);
    // warm both paths first (the first query, the preview thread's start), as a running service is
    await timed(base, '/api/runs', { authorization: owner.auth });
    await timed(base, '/api/envs/sokoban/preview?seed=0');
  });
  afterAll(() => t.close());

  it('refuses at once, naming maxExploredStates, a room generation that could outrun its budget', async () => {
    const res = await timed(base, previewPath(HEAVY));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', details: [{ path: 'maxExploredStates' }] });
    expect(JSON.stringify(res.body.details)).toMatch(/lower maxExploredStates to 15625 or less/);
    expect(res.ms).toBeLessThan(2_000);
  });

  it('generates on a thread: an authenticated request answers within 200 ms meanwhile', async () => {
    const preview = timed(base, previewPath(LARGEST, 2));
    await new Promise((r) => setTimeout(r, 100));
    const runs = await timed(base, '/api/runs', { authorization: owner.auth });
    expect(runs.status).toBe(200);
    expect(runs.ms).toBeLessThan(200);
    const done = await preview;
    expect(done.status).toBe(200);
    expect((done.body.snapshot as { boxes: unknown[] }).boxes).toHaveLength(4);
    // the same preview again comes from the cache
    expect((await timed(base, previewPath(LARGEST, 2))).ms).toBeLessThan(200);
  });

  it('a run whose room generation could outrun a reset is refused at launch, saying what to lower', async () => {
    const res = await t.http
      .post('/api/runs')
      .set('Authorization', owner.auth)
      .send({ name: 'heavy', preset: 'quick-cpu', config: { env: { name: 'sokoban', config: HEAVY } } })
      .expect(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details).toEqual([
      { path: 'env.config.maxExploredStates', message: expect.stringMatching(/lower maxExploredStates to 15625 or less/) },
    ]);
    expect(await t.db.run.count()).toBe(0);
  });
});

describe('a preview past its time limit', () => {
  let t: TestApi;
  let base: string;
  beforeAll(async () => {
    t = await startTestApi({ previewTimeoutMs: 50 });
    base = await listen(t);
  });
  afterAll(() => t.close());

  it('is a 422 naming the setting to lower, and the next preview still works', async () => {
    const res = await timed(base, previewPath(LARGEST, 3));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'generation_over_budget',
      message:
        'generating this sokoban environment took longer than 50 ms; lower config.maxExploredStates (or the size of the environment)',
      details: [{ path: 'config.maxExploredStates', message: 'generation over budget: lower it' }],
    });
    expect(res.ms).toBeLessThan(1_000);
    // a fresh thread takes the next job; a bandit preview is instant
    expect((await timed(base, '/api/envs/bandit/preview?seed=1')).status).toBe(200);
  });
});
