import { SokobanEnv, renderSokoban } from '@starpo/envs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

describe('external runs: boards from text, diagnostics at ingestion, config as sent, heartbeat', () => {
  let t: TestApi;
  let owner: TestUser;
  const get = (path: string) => t.http.get(path).set('Authorization', owner.auth);
  const post = (path: string, body?: object) => t.http.post(path).set('Authorization', owner.auth).send(body);
  beforeAll(async () => {
    t = await startTestApi({ externalStaleMs: 1500 });
    owner = await signupOwner(t);
  });
  afterAll(async () => t?.close());

  it('rebuilds boards from RAGEN text, keeps unreadable turns as text with a note, and flags the step at once', async () => {
    const run = (
      await post('/api/runs', { name: 'ragen', external: true, config: { env: 'CoordSokoban', trainer: { project_name: 'x' } } }).expect(
        201,
      )
    ).body;
    expect(run).toMatchObject({ environment: 'sokoban', algorithm: 'external', totalSteps: 0, config: { env: 'CoordSokoban' } });
    expect(run.webUrl).toMatch(new RegExp(`/runs/${run.id}$`));
    const board = '######\n#P_O_#\n#_X__#\n######';
    const huge = 'The box is at (2, 2). '.repeat(2000);
    const res = await post(`/api/runs/${run.id}/ingest/trajectories`, {
      trajectories: [
        {
          step: 1,
          success: false,
          turns: [
            { observation: `Turn 1:\nState:\n${board}\nYou have 10 actions left.`, ...reply('Box at (1, 3). Plan: Right.', 'Right') },
            { observation: '', ...reply('', 'Up') },
            { observation: 'I see a corridor.', ...reply('going down', 'Down'), snapshot: { env: 'sokoban', bogus: true } },
            { observation: board, ...reply(huge, 'Left') },
          ],
        },
        {
          step: 1,
          indexInGroup: 1,
          success: false,
          turns: [{ observation: board, ...reply('Box at (2, 2). Plan: Right.', 'Right') }],
        },
      ],
    }).expect(200);
    expect(res.body).toEqual({ accepted: 2, diagnosed: 2 });

    const list = (await get(`/api/runs/${run.id}/trajectories?hallucinated=true`).expect(200)).body.items;
    expect(list.map((x: { indexInGroup: number }) => x.indexInGroup)).toEqual([0]);
    const replay = (await get(`/api/trajectories/${list[0].id}`).expect(200)).body;
    const [first, empty, unreadable, long] = replay.turns;
    expect(first.stateSnapshot).toMatchObject({ env: 'sokoban', player: [1, 1], boxes: [[2, 2]] });
    expect(first.diagnostics.contradicted).toBe(1);
    expect(empty.stateSnapshot).toEqual({ missing: 'the observation is empty' });
    expect(empty.diagnostics).toBeNull();
    expect(unreadable).toMatchObject({
      observation: 'I see a corridor.',
      stateSnapshot: { missing: expect.stringMatching(/not a sokoban state.*no Sokoban grid/), sent: { env: 'sokoban', bogus: true } },
    });
    expect(long.think).toBe(huge);
    expect(long.diagnostics.claims.length).toBeGreaterThan(100);
    expect((await get(`/api/runs/${run.id}/metrics?keys=train/diag/hallucination_rate`).expect(200)).body[0].points).toEqual([
      expect.objectContaining({ step: 1, value: 0.5 }),
    ]);
    const summary = (await get(`/api/runs/${run.id}/diagnostics`).expect(200)).body;
    expect(summary.flags.hallucinated).toBe(1);
  });

  it('diagnoses a step batch sent over several requests as if it came in one, rewriting stored rows the new ones change', async () => {
    const boards = ['######\n#P_O_#\n#_X__#\n######', '######\n#_PO_#\n#_X__#\n######', '######\n#__OP#\n#_X__#\n######'];
    // one think text at three different boards: template collapse, which only the whole batch shows
    const traj = (i: number) => ({
      step: 4,
      indexInGroup: i,
      success: false,
      turns: [{ observation: boards[i]!, ...reply('I will push the box onto the target now.', 'Down') }],
    });
    const split = (await post('/api/runs', { external: true, config: { env: 'CoordSokoban' } }).expect(201)).body;
    const whole = (await post('/api/runs', { external: true, config: { env: 'CoordSokoban' } }).expect(201)).body;
    expect((await post(`/api/runs/${split.id}/ingest/trajectories`, { trajectories: [traj(0)] }).expect(200)).body).toEqual({
      accepted: 1,
      diagnosed: 1,
    });
    const flagsOf = async (id: string) =>
      ((await get(`/api/runs/${id}/trajectories`).expect(200)).body.items as { indexInGroup: number; flags: string[] }[])
        .sort((a, b) => a.indexInGroup - b.indexInGroup)
        .map((x) => x.flags);
    expect(await flagsOf(split.id)).toEqual([[]]);
    // the second request makes the first trajectory a template too (so it is judged again); sending it
    // twice stores it once, and the second time changes no stored row's marks
    for (const diagnosed of [3, 2])
      expect((await post(`/api/runs/${split.id}/ingest/trajectories`, { trajectories: [traj(1), traj(2)] }).expect(200)).body).toEqual({
        accepted: 2,
        diagnosed,
      });
    await post(`/api/runs/${whole.id}/ingest/trajectories`, { trajectories: [traj(0), traj(1), traj(2)] }).expect(200);
    expect(await flagsOf(split.id)).toEqual([['template_collapse'], ['template_collapse'], ['template_collapse']]);
    expect(await flagsOf(whole.id)).toEqual(await flagsOf(split.id));
    const summary = async (id: string) => (await get(`/api/runs/${id}/diagnostics`).expect(200)).body;
    expect((await summary(split.id)).flags.template_collapse).toBe(3);
    expect(await summary(split.id)).toEqual(await summary(whole.id));
    const diag = async (id: string) =>
      (
        (await get(`/api/runs/${id}/metrics?keys=train/diag/template_rate,train/diag/distinct_think_ratio`).expect(200)).body as {
          key: string;
          points: { step: number; value: number }[];
        }[]
      ).map((s) => [s.key, s.points.map((p) => [p.step, p.value])]);
    expect(await diag(split.id)).toEqual([
      ['train/diag/distinct_think_ratio', [[4, 1 / 3]]],
      ['train/diag/template_rate', [[4, 1]]],
    ]);
    expect(await diag(split.id)).toEqual(await diag(whole.id));
  });

  it('stores the same checks, flags and step metrics however a batch is split into requests, in any order', async () => {
    // 18 Sokoban episodes of 3 turns; think texts in the teacher's sentences with true and false positions, and one text repeated at many boards
    const env = new SokobanEnv({ observationFormat: 'grid_coord' });
    const trajectories = Array.from({ length: 18 }, (_, i) => {
      env.reset(500 + i);
      const turns = Array.from({ length: 3 }, (_, k) => {
        const s = env.snapshot();
        const [br, bc] = s.boxes[0]!;
        const action = env.actions[(i + k) % 4]!;
        const think =
          (i + k) % 5 === 0
            ? 'I will push the box onto the target now.'
            : `Player at (${s.player[0]}, ${s.player[1]}). Box at (${br + (i % 3 === 0 ? 1 : 0)}, ${bc}). Plan: ${action}.`;
        const observation = renderSokoban(s, 'grid_coord');
        const reward = env.step(action).reward;
        return { observation, ...reply(think, action), reward };
      });
      return { step: 2, group: Math.floor(i / 6), indexInGroup: i % 6, success: env.success, turns };
    });
    const chunked = (sizes: number[]) => {
      const out: (typeof trajectories)[] = [];
      for (let at = 0, k = 0; at < trajectories.length; at += sizes[k++ % sizes.length]!)
        out.push(trajectories.slice(at, at + sizes[k % sizes.length]!));
      return out;
    };
    const ways = {
      whole: [trajectories],
      oneByOne: chunked([1]),
      uneven: chunked([4, 1, 7, 2]),
      reversed: chunked([5, 3]).reverse(),
    };
    const stored: Record<string, unknown> = {};
    for (const [name, requests] of Object.entries(ways)) {
      const run = (await post('/api/runs', { name, external: true, config: { env: 'CoordSokoban' } }).expect(201)).body;
      for (const body of requests) await post(`/api/runs/${run.id}/ingest/trajectories`, { trajectories: body }).expect(200);
      const items = (
        (await get(`/api/runs/${run.id}/trajectories?limit=100`).expect(200)).body.items as {
          id: string;
          group: number;
          indexInGroup: number;
        }[]
      ).sort((a, b) => a.group - b.group || a.indexInGroup - b.indexInGroup);
      const replays = await Promise.all(items.map(async (x) => (await get(`/api/trajectories/${x.id}`).expect(200)).body));
      const metrics = (
        (await get(`/api/runs/${run.id}/metrics?keys=train/diag/hallucination_rate,train/diag/template_rate`).expect(200)).body as {
          key: string;
          points: { step: number; value: number }[];
        }[]
      ).map((m) => [m.key, m.points.map((p) => [p.step, p.value])]);
      // the summary's counts (its example turns are whichever were stored first)
      const summary = JSON.parse(
        JSON.stringify((await get(`/api/runs/${run.id}/diagnostics`).expect(200)).body, (k, v: unknown) =>
          k === 'examples' ? undefined : v,
        ),
      );
      stored[name] = {
        trajectories: replays.map((r: { flags: string[]; hallucinated: boolean; turns: { diagnostics: unknown }[] }) => ({
          flags: r.flags,
          hallucinated: r.hallucinated,
          turns: r.turns.map((u) => u.diagnostics),
        })),
        metrics,
        summary,
      };
    }
    const whole = stored.whole as { trajectories: { flags: string[] }[] };
    // the batch has both kinds of flag, so the comparison is not between empty results
    expect(whole.trajectories.filter((t) => t.flags.includes('hallucinated')).length).toBeGreaterThan(2);
    expect(whole.trajectories.filter((t) => t.flags.includes('template_collapse')).length).toBeGreaterThan(2);
    for (const name of Object.keys(ways)) expect(stored[name], name).toEqual(stored.whole);
  });

  it('stores the turns of an environment the server does not know as text', async () => {
    const run = (
      await post('/api/runs', { external: true, config: { env: { name: 'webshop' }, algorithm: { adv_estimator: 'grpo' } } }).expect(201)
    ).body;
    expect(run).toMatchObject({ environment: 'webshop', algorithm: 'grpo' });
    await post(`/api/runs/${run.id}/ingest/trajectories`, {
      trajectories: [
        { step: 0, success: true, turns: [{ observation: 'search results: 3 shoes', ...reply('buy the first', 'click[1]') }] },
      ],
    }).expect(200);
    const [item] = (await get(`/api/runs/${run.id}/trajectories`).expect(200)).body.items;
    const replay = (await get(`/api/trajectories/${item.id}`).expect(200)).body;
    expect(replay.turns[0].stateSnapshot).toEqual({ missing: 'unknown environment "webshop"' });
  });

  it('shows progress only for a planned step count, goes crashed after a silence and revives on ingestion', async () => {
    const planned = (
      await post('/api/runs', { external: true, config: { env: { name: 'frozenlake' }, trainer: { total_training_steps: 200 } } }).expect(
        201,
      )
    ).body;
    expect(planned).toMatchObject({ environment: 'frozenlake', totalSteps: 200, status: 'running' });
    await new Promise((r) => setTimeout(r, 1700));
    const listed = (await get('/api/runs').expect(200)).body.items.find((r: { id: string }) => r.id === planned.id);
    expect(listed.status).toBe('crashed');
    await post(`/api/runs/${planned.id}/ingest/metrics`, { points: [{ key: 'train/success', step: 3, value: 0.5 }] }).expect(200);
    expect((await get(`/api/runs/${planned.id}`).expect(200)).body).toMatchObject({ status: 'running', currentStep: 3 });
  });

  it('stores concurrent metric posts to one run once each, and answers each with its own count', async () => {
    const run = (await post('/api/runs', { name: 'concurrent', external: true, config: {} }).expect(201)).body;
    const batch = (b: number) => Array.from({ length: 300 }, (_, i) => ({ key: `k${i % 3}`, step: b * 100 + Math.floor(i / 3), value: b }));
    const bodies = [0, 1, 2, 3, 4, 5].map((b) => ({ points: batch(b) }));
    bodies.push({ points: batch(2) }); // a replay, racing its original
    bodies.push({ points: [...batch(6).slice(0, 12), ...batch(6).slice(0, 12)] }); // each key+step twice counts once
    const answers = await Promise.all(bodies.map((b) => post(`/api/runs/${run.id}/ingest/metrics`, b).expect(200)));
    expect(answers.map((a) => a.body.accepted)).toEqual([300, 300, 300, 300, 300, 300, 300, 12]);
    expect(await t.db.metricPoint.count({ where: { runId: run.id } })).toBe(6 * 300 + 12);
    expect((await get(`/api/runs/${run.id}`).expect(200)).body).toMatchObject({ status: 'running', currentStep: 603 });
    const [k0] = (await get(`/api/runs/${run.id}/metrics?keys=k0&maxPoints=1000`).expect(200)).body as {
      points: { step: number; value: number }[];
    }[];
    const steps = [...[0, 1, 2, 3, 4, 5].flatMap((b) => Array.from({ length: 100 }, (_, i) => b * 100 + i)), 600, 601, 602, 603];
    expect(k0!.points.map((p) => p.step)).toEqual(steps);
    expect(k0!.points.every((p) => p.value === Math.floor(p.step / 100))).toBe(true);
  });
});
