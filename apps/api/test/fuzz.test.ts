import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

/**
 * Property-based fuzzing of every write endpoint (and the query strings of the list endpoints)
 * through real HTTP against the real app and Postgres: valid bodies with one part replaced by a
 * hostile value, removed or joined by an unknown key; arbitrary JSON; raw text under any content
 * type. Whatever comes in, the answer is below 500 and every error has the common shape.
 * FUZZ_RUNS (cases per endpoint) and FUZZ_SEED override the defaults.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = Number(process.env.FUZZ_SEED ?? 20261202);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const nested = (depth: number, leaf: Json): Json => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

/** Inputs Postgres cannot store or that LIKE and SQL treat specially, plus ordinary random values. */
const hostileString = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '%', '_', '%_%', '\\', "'; DROP TABLE runs; --", '\ud800', '𝔘𝔫𝔦', '', ' ', 'x'.repeat(300)),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);
const hostileNumber = fc.oneof(
  fc.constantFrom(2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53, 2 ** 63, 1e20, -1e20, 1e308, -1e308, 5e-324, -0, 0.5, -1),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const hostile: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 300 }), hostileString).map(([d, leaf]) => nested(d, leaf)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
);

/** Every path (objects and arrays) inside a value, the root included. */
function paths(v: Json, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(v)) v.forEach((c, i) => out.push(...paths(c, [...at, i])));
  else if (v && typeof v === 'object') for (const [k, c] of Object.entries(v)) out.push(...paths(c, [...at, k]));
  return out;
}

/** The template with the part at one path replaced or removed, or a key added beside it. */
function mutate(template: Json, pick: number, op: 'replace' | 'delete' | 'add', key: string, value: Json): Json {
  const copy = structuredClone(template);
  const all = paths(copy);
  const path = all[pick % all.length]!;
  if (!path.length) return op === 'replace' ? value : copy;
  const parent = path.slice(0, -1).reduce<Json>((o, k) => (o as Record<string, Json>)[k]!, copy) as Record<string | number, Json>;
  const last = path.at(-1)!;
  if (op === 'replace') parent[last] = value;
  else if (op === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (!Array.isArray(parent)) parent[key] = value;
  return copy;
}

type Body = { kind: 'json'; value: Json } | { kind: 'raw'; type: string; text: string };

const bodyFor = (template: Json): fc.Arbitrary<Body> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.nat(), fc.constantFrom('replace', 'delete', 'add') as fc.Arbitrary<'replace' | 'delete' | 'add'>, hostileString, hostile)
        .map(([pick, op, key, value]) => ({ kind: 'json' as const, value: mutate(template, pick, op, key, value) })),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'json' as const, value: template }) },
    { weight: 2, arbitrary: hostile.map((value) => ({ kind: 'json' as const, value })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data'), fc.string())
        .map(([type, text]) => ({ kind: 'raw' as const, type, text })),
    },
  );

/** A query string of known and unknown keys with hostile values (sometimes repeated). */
const queryFor = (keys: string[], base: () => [string, string][] = () => []): fc.Arbitrary<string> =>
  fc
    .array(fc.tuple(fc.constantFrom(...keys, 'bogus'), fc.oneof(hostileString, hostileNumber.map(String))), { maxLength: 5 })
    .map((pairs) => new URLSearchParams([...base(), ...pairs]).toString());

describe('fuzzing every write endpoint and list query', () => {
  let t: TestApi;
  let owner: TestUser;
  let runId: string;
  let extId: string;
  const tally = new Map<string, Map<number, number>>();
  const unstorable: string[] = [];

  beforeAll(async () => {
    t = await startTestApi({ authRateLimit: 1000 });
    owner = await signupOwner(t);
    runId = (await t.http.post('/api/runs').set('Authorization', owner.auth).send({ preset: 'quick-cpu' }).expect(201)).body.id;
    extId = (await t.http.post('/api/runs').set('Authorization', owner.auth).send({ external: true, config: {} }).expect(201)).body.id;
  });
  afterAll(async () => {
    const lines = [...tally].map(([route, byStatus]) => `${route}: ${[...byStatus].map(([s, n]) => `${s}×${n}`).join(' ')}`);
    const total = [...tally.values()].reduce((s, m) => s + [...m.values()].reduce((a, b) => a + b, 0), 0);
    console.log(`fuzz seed ${SEED}, ${RUNS} cases per endpoint, ${total} requests\n${lines.join('\n')}`);
    await t?.close();
  });

  /** Some ids a path may carry: the fixtures, an unknown uuid, and hostile text. */
  const id = fc.oneof(
    { weight: 8, arbitrary: fc.constant('RUN') },
    { weight: 1, arbitrary: fc.constantFrom('00000000-0000-0000-0000-000000000000', 'not-a-uuid') },
    { weight: 1, arbitrary: hostileString.filter((s) => s.length > 0 && !s.includes('/')) },
  );
  const pathWith = (p: string, v: string, fixture: () => string) => p.replace(':id', v === 'RUN' ? fixture() : encodeURIComponent(v));

  async function check(route: string, sent: string, res: { status: number; body: unknown; text: string }): Promise<void> {
    const byStatus = tally.get(route) ?? new Map<number, number>();
    byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
    tally.set(route, byStatus);
    expect(res.status, `${route} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
    if (res.status >= 400) {
      const b = res.body as { error?: unknown; message?: unknown; details?: unknown };
      expect(typeof b.error, res.text).toBe('string');
      expect(typeof b.message, res.text).toBe('string');
      expect(b.details, res.text).toBeDefined();
      if (b.error === 'unstorable_input') unstorable.push(`${route} ${sent.slice(0, 500)}`);
    }
  }

  const writes: { method: 'post' | 'patch' | 'delete'; path: string; template: Json; fixture?: () => string }[] = [
    {
      method: 'post',
      path: '/api/runs',
      template: { name: 'r', preset: 'quick-cpu', config: { training: { steps: 5 } }, tags: ['a'], notes: 'n', external: false },
    },
    { method: 'patch', path: '/api/runs/:id', template: { name: 'n', tags: ['t'], notes: 'x' } },
    { method: 'post', path: '/api/runs/:id/clone', template: { name: 'c', config: { training: { steps: 3 } }, tags: ['t'], notes: '' } },
    { method: 'post', path: '/api/runs/:id/cancel', template: {} },
    { method: 'post', path: '/api/runs/:id/resume', template: {} },
    {
      method: 'post',
      path: '/api/runs/:id/ingest/metrics',
      template: {
        points: [
          { key: 'loss', step: 1, value: 0.5, time: 1.7e9 },
          { key: 'acc', step: 2, value: 1 },
        ],
      },
      fixture: () => extId,
    },
    {
      method: 'post',
      path: '/api/runs/:id/ingest/trajectories',
      template: {
        trajectories: [
          {
            step: 1,
            split: 'train',
            group: 0,
            indexInGroup: 0,
            seed: 3,
            success: true,
            turns: [
              {
                observation: '#P_O#',
                rawReply: '<think>t</think><answer>Up</answer>',
                think: 't',
                answer: 'Up',
                reward: 1,
                done: true,
                formatOk: true,
                actions: ['Up'],
                snapshot: { board: [[1, 2]], player: [0, 1] },
              },
            ],
          },
        ],
      },
      fixture: () => extId,
    },
    {
      method: 'post',
      path: '/api/base-models',
      template: {
        name: 'b',
        env: 'sokoban',
        size: 'nano',
        dialogues: 10,
        epochs: 1,
        batchSize: 1,
        lr: 0.001,
        randomShare: 0.1,
        valSize: 1,
        seed: 0,
      },
    },
    { method: 'post', path: '/api/tokens', template: { name: 'fuzz' } },
    { method: 'delete', path: '/api/tokens/:id', template: {} },
    { method: 'post', path: '/api/team/invites', template: { role: 'member', email: 'a@b.test', expiresInHours: 1 } },
    { method: 'patch', path: '/api/team/members/:id', template: { role: 'member' }, fixture: () => owner.userId },
    {
      method: 'post',
      path: '/api/auth/signup',
      template: { email: 'x@y.test', password: '12345678', name: 'n', teamName: 't', invite: 'inv_0123456789abcdef' },
    },
    { method: 'post', path: '/api/auth/login', template: { email: 'owner@lab.test', password: 'not the password' } },
    // last: a valid body closes the external run to further ingestion
    { method: 'post', path: '/api/runs/:id/ingest/finish', template: { status: 'succeeded', stopReason: 'done' }, fixture: () => extId },
    { method: 'delete', path: '/api/runs/:id', template: {}, fixture: () => '00000000-0000-0000-0000-000000000000' },
  ];

  for (const w of writes) {
    it(`${w.method.toUpperCase()} ${w.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(bodyFor(w.template), id, async (body, pathId) => {
          const path = pathWith(w.path, pathId, w.fixture ?? (() => runId));
          let req = t.http[w.method](path).set('Authorization', owner.auth);
          req =
            body.kind === 'json'
              ? req.set('content-type', 'application/json').send(JSON.stringify(body.value))
              : req.set('content-type', body.type).send(body.text);
          await check(`${w.method.toUpperCase()} ${w.path}`, `${path} ${JSON.stringify(body)}`, await req);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    });
  }

  const lists: { path: string; keys: string[]; fixture?: () => string; base?: () => [string, string][] }[] = [
    { path: '/api/runs', keys: ['status', 'environment', 'algorithm', 'owner', 'tag', 'q', 'sort', 'limit', 'cursor'] },
    { path: '/api/runs/:id/metrics', keys: ['keys', 'from', 'to', 'maxPoints', 'format'], fixture: () => extId },
    { path: '/api/metrics', keys: ['runs', 'keys', 'from', 'to', 'maxPoints', 'format'], base: () => [['runs', `${extId},${runId}`]] },
    {
      path: '/api/runs/:id/trajectories',
      keys: ['from', 'to', 'split', 'success', 'hallucinated', 'minReward', 'maxReward', 'environment', 'group', 'flag', 'limit', 'cursor'],
      fixture: () => extId,
    },
    { path: '/api/runs/:id/trajectories.jsonl', keys: ['from', 'to', 'split', 'success', 'flag', 'group'], fixture: () => extId },
    { path: '/api/runs/:id/diagnostics', keys: ['from', 'to', 'split', 'limit', 'examples'], fixture: () => extId },
    { path: '/api/runs/:id/logs', keys: ['after'] },
    { path: '/api/envs/sokoban/preview', keys: ['seed', 'rows', 'cols'] },
  ];

  for (const l of lists) {
    it(`GET ${l.path}?…`, async () => {
      await fc.assert(
        fc.asyncProperty(queryFor(l.keys, l.base), id, async (query, pathId) => {
          const path = pathWith(l.path, pathId, l.fixture ?? (() => runId));
          await check(`GET ${l.path}`, `${path}?${query}`, await t.http.get(`${path}?${query}`).set('Authorization', owner.auth));
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    });
  }

  it('the validation layer answered every unstorable value, and /health is 200 after', async () => {
    expect(unstorable).toEqual([]);
    await t.http.get('/health').expect(200);
  });
});
