import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, otherTeamUser, reply, signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

const BENCH = path.resolve(import.meta.dirname, '../../../packages/envs/scripts/bench-diagnostics.mjs');
// player (1, 1), box (2, 2), target (1, 3)
const board = '######\n#P_O_#\n#_X__#\n######';

interface Claim {
  span: [number, number];
  verdict: string;
  rule?: string;
}

describe("a team's verdicts on the checker's flags: marking, precision per rule, export into bench:diagnostics", () => {
  let t: TestApi;
  let owner: TestUser;
  let member: TestUser;
  let viewer: TestUser;
  let dir: string;
  const as = (u: TestUser) => ({
    get: (p: string) => t.http.get(p).set('Authorization', u.auth),
    post: (p: string, body?: object) => t.http.post(p).set('Authorization', u.auth).send(body),
  });
  /** A trajectory of one turn with `think`; its id and the turn's claims as the checker read them. */
  async function trajectory(think: string, index: number): Promise<{ id: string; think: string; claims: Claim[] }> {
    const run = (
      await as(owner)
        .post('/api/runs', { name: `v${index}`, external: true, config: { env: 'CoordSokoban' } })
        .expect(201)
    ).body;
    await as(owner)
      .post(`/api/runs/${run.id}/ingest/trajectories`, {
        trajectories: [{ step: 1, success: false, turns: [{ observation: `Turn 1:\nState:\n${board}`, ...reply(think, 'Right') }] }],
      })
      .expect(200);
    const list = (await as(owner).get(`/api/runs/${run.id}/trajectories`).expect(200)).body.items;
    const replay = (await as(owner).get(`/api/trajectories/${list[0].id}`).expect(200)).body;
    return { id: list[0].id, think, claims: replay.turns[0].diagnostics.claims };
  }

  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
    member = await joinAs(t, owner, 'member', 'member@lab.test');
    viewer = await joinAs(t, owner, 'viewer', 'viewer@lab.test');
    dir = mkdtempSync(path.join(tmpdir(), 'verdicts-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets members mark flags, not viewers nor other teams; checks the sentence; keeps who and when', async () => {
    const a = await trajectory('Box at (1, 3). Plan: Right.', 0);
    const flagged = a.claims.find((c) => c.verdict === 'contradicted')!;
    expect(flagged).toMatchObject({ span: [0, 'Box at (1, 3)'.length], rule: 'coordinate' });
    const url = `/api/trajectories/${a.id}/turns/0/verdicts`;

    const denied = await as(viewer).post(url, { span: flagged.span, verdict: 'right' }).expect(403);
    expect(denied.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    await as(await otherTeamUser(t))
      .post(url, { span: flagged.span, verdict: 'right' })
      .expect(404);
    const bad = await as(member)
      .post(url, { span: [5, 500], verdict: 'right' })
      .expect(400);
    expect(bad.body.details).toEqual([expect.objectContaining({ path: 'span' })]);
    await as(member).post(url, { span: flagged.span, verdict: 'maybe' }).expect(400);
    await as(member).post(`/api/trajectories/${a.id}/turns/7/verdicts`, { span: flagged.span, verdict: 'right' }).expect(404);
    // "Plan: Right." is not flagged: it can only be marked as a miss
    await as(member)
      .post(url, { span: [15, 27], verdict: 'right' })
      .expect(422);

    const first = (await as(member).post(url, { span: flagged.span, verdict: 'wrong', note: 'typo' }).expect(201)).body;
    expect(first).toMatchObject({ flagged: true, rule: 'coordinate', verdict: 'wrong', note: 'typo', user: { email: 'member@lab.test' } });
    // marking again replaces the verdict; who and when are the last marker's
    const again = (await as(owner).post(url, { span: flagged.span, verdict: 'right' }).expect(201)).body;
    expect(again).toMatchObject({ id: first.id, verdict: 'right', note: null, user: { email: 'owner@lab.test' } });
    expect(Date.parse(again.createdAt)).toBeGreaterThanOrEqual(Date.parse(first.createdAt));
    expect((await as(viewer).get(`/api/trajectories/${a.id}/verdicts`).expect(200)).body).toEqual([again]);
  });

  it("measures the checker's precision on the team's verdicts, per rule and overall, and exports them as a labelled set bench:diagnostics scores", async () => {
    // a flag the team marks wrong (its verdicts are what is measured), and a miss in a text with no flag (the box is not on the target)
    const b = await trajectory('Box at (2, 1).', 1);
    const wrongFlag = b.claims.find((c) => c.verdict === 'contradicted')!;
    await as(member).post(`/api/trajectories/${b.id}/turns/0/verdicts`, { span: wrongFlag.span, verdict: 'wrong' }).expect(201);
    const c = await trajectory('My only box is already home. I push down.', 2);
    expect(c.claims.filter((x) => x.verdict === 'contradicted')).toEqual([]);
    await as(member)
      .post(`/api/trajectories/${c.id}/turns/0/verdicts`, {
        span: [0, 'My only box is already home'.length],
        verdict: 'wrong',
        note: 'missed',
      })
      .expect(201);

    const summary = (await as(viewer).get('/api/verdicts/precision').expect(200)).body;
    expect(summary).toEqual({
      overall: { right: 1, wrong: 1, precision: 0.5 },
      rules: [{ rule: 'coordinate', right: 1, wrong: 1, precision: 0.5 }],
      missed: 1,
    });
    expect(
      (
        await as(await otherTeamUser(t))
          .get('/api/verdicts/precision')
          .expect(200)
      ).body.overall,
    ).toEqual({
      right: 0,
      wrong: 0,
      precision: null,
    });

    const res = await as(viewer).get('/api/verdicts.jsonl').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/x-ndjson/);
    const rows = res.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(3);
    const byThink = Object.fromEntries(rows.map((r) => [r.think, r]));
    expect(byThink['Box at (1, 3). Plan: Right.']).toMatchObject({
      env: 'sokoban',
      contradicted: true,
      claims: [{ text: 'Box at (1, 3)', verdict: 'false' }],
      verdicts: [{ by: 'owner@lab.test', rule: 'coordinate', flagged: true, verdict: 'right' }],
    });
    expect(byThink['Box at (2, 1).']).toMatchObject({ contradicted: false, claims: [{ verdict: 'true' }] });
    expect(byThink['My only box is already home. I push down.']).toMatchObject({ contradicted: true });

    // the round trip: the export is a labelled set the bench scores (1 flag right, 1 wrong, 1 missed)
    const file = path.join(dir, 'verdicts.jsonl');
    writeFileSync(file, res.text);
    const { stdout } = await promisify(execFile)(process.execPath, [BENCH, '--set', file]);
    expect(stdout).toMatch(/3 think texts, 2 labelled contradicted/);
    expect(stdout).toMatch(/verdicts\.jsonl\s+hallucinated n=\s+3 tp=\s+1 fp=\s+1 fn=\s+1 tn=\s+0 {2}P=0\.500 R=0\.500/);
  });
});
