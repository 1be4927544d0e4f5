import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ROUTES, type RouteContract } from '@starpo/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeOf } from '../src/route.js';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

/** Every handler Nest mounted, with the contract it was mounted from (undefined: none). */
function handlers(t: TestApi): { name: string; route: RouteContract | undefined }[] {
  const out: { name: string; route: RouteContract | undefined }[] = [];
  for (const mod of t.app.get(ModulesContainer).values())
    for (const wrapper of mod.controllers.values()) {
      const ctrl = wrapper.metatype as (new (...a: never[]) => object) | null;
      if (!ctrl) continue;
      for (const name of Object.getOwnPropertyNames(ctrl.prototype)) {
        const handler = (ctrl.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        out.push({ name: `${ctrl.name}.${name}`, route: routeOf(handler) });
      }
    }
  return out;
}

const concrete = (path: string) => path.replace(/:\w+/g, '00000000-0000-0000-0000-000000000000');

describe('routes come from their contracts (packages/contracts/src/routes.ts)', () => {
  let t: TestApi;
  let owner: TestUser;
  beforeAll(async () => {
    t = await startTestApi();
    owner = await signupOwner(t);
  });
  afterAll(() => t.close());

  it('every handler is mounted from a contract, and every contract has exactly one handler', () => {
    const mounted = handlers(t);
    expect(mounted.length).toBeGreaterThan(40);
    expect(mounted.filter((h) => !h.route).map((h) => h.name)).toEqual([]);
    const served = mounted.map((h) => `${h.route!.method} ${h.route!.path}`).sort();
    expect(served).toEqual(
      Object.values(ROUTES)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    );
  });

  it('the served OpenAPI document states each route with its status, role and response schema', async () => {
    const doc = (await t.http.get('/api/openapi.json').expect(200)).body as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          { responses: Record<string, { content?: Record<string, { schema?: unknown }> }>; security?: unknown[]; description?: string }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    for (const r of Object.values(ROUTES) as RouteContract[]) {
      const op = doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      const ok = op!.responses[String(r.status)];
      expect(ok, `${r.method} ${r.path} ${r.status}`).toBeDefined();
      if (r.response) expect(ok!.content?.['application/json']?.schema, `${r.method} ${r.path} response`).toBeTruthy();
      if (r.role === 'public') expect(op!.security).toEqual([]);
      else expect(op!.description).toContain(`the ${r.role} role`);
    }
  });

  it('names each operation by its contract key and documents its errors in the one error shape', async () => {
    const doc = (await t.http.get('/api/openapi.json').expect(200)).body as {
      servers: { url: string }[];
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> }>>;
      components: { schemas: { Error: { properties: object; required: string[] } } };
    };
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(Object.keys(doc.components.schemas.Error.properties)).toEqual(['error', 'message', 'details']);
    expect(doc.components.schemas.Error.required).toEqual(['error', 'message']);
    for (const [name, r] of Object.entries(ROUTES) as [string, RouteContract][]) {
      const op = doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]![r.method.toLowerCase()]!;
      expect(op.operationId, `${r.method} ${r.path}`).toBe(name);
      const errors = Object.entries(op.responses).filter(([status]) => /^4\d\d$/.test(status));
      expect(errors.length, `${name}: 4xx responses`).toBeGreaterThan(0);
      for (const [status, res] of errors)
        expect(res.content, `${name} ${status}`).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/Error' } } });
      if (r.path.includes(':')) expect(op.responses, `${name} 404`).toHaveProperty('404');
      if (r.role !== 'public') expect(op.responses, `${name} 401`).toHaveProperty('401');
      if (r.body) expect(Object.keys(op.responses), `${name} body errors`).toEqual(expect.arrayContaining(['400', '413', '415']));
    }
  });

  it('answers the errors its document names: 404 for a path parameter that names nothing, 400 for an unstorable query', async () => {
    const answers: string[] = [];
    for (const r of Object.values(ROUTES) as RouteContract[]) {
      if (!r.path.includes(':') || (r.method !== 'GET' && r.method !== 'DELETE')) continue;
      // not an id at all: the verdicts of a well-formed but unknown trajectory are an empty list, not a 404
      const url = r.path.replace(/:\w+/g, 'nothing');
      const res = await t.http[r.method === 'GET' ? 'get' : 'delete'](url).set('Authorization', owner.auth);
      answers.push(`${r.method} ${r.path} ${res.status}`);
    }
    expect(answers.filter((a) => !a.endsWith(' 404'))).toEqual([]);
    const res = await t.http.get('/health?x=%00').expect(400);
    expect(res.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'x' }] });
  });

  it('each route answers at its path, and refuses callers below its role before anything else', async () => {
    for (const r of Object.values(ROUTES) as RouteContract[]) {
      const res = await t.http[r.method.toLowerCase() as 'get'](concrete(r.path));
      expect(String(res.body?.message ?? ''), `${r.method} ${r.path}`).not.toMatch(/^Cannot (GET|POST|PATCH|DELETE)/);
      if (r.role !== 'public') expect(res.status, `${r.method} ${r.path} without credentials`).toBe(401);
    }
  });

  it("what the API answers parses with the contract's response schema", async () => {
    const auth = { authorization: `Bearer ${owner.token}` };
    const run = await t.http.post('/api/runs').set(auth).send({ preset: 'quick-cpu', name: 'contract' }).expect(201);
    const reads: [RouteContract, string][] = [
      [ROUTES.health, '/health'],
      [ROUTES.envs, '/api/envs'],
      [ROUTES.me, '/api/auth/me'],
      [ROUTES.teams, '/api/teams'],
      [ROUTES.members, '/api/team/members'],
      [ROUTES.invites, '/api/team/invites'],
      [ROUTES.tokens, '/api/tokens'],
      [ROUTES.runs, '/api/runs'],
      [ROUTES.run, `/api/runs/${run.body.id}`],
      [ROUTES.logs, `/api/runs/${run.body.id}/logs`],
      [ROUTES.checkpoints, `/api/runs/${run.body.id}/checkpoints`],
      [ROUTES.trajectories, `/api/runs/${run.body.id}/trajectories`],
      [ROUTES.diagnostics, `/api/runs/${run.body.id}/diagnostics`],
      [ROUTES.workers, '/api/workers'],
      [ROUTES.baseModels, '/api/base-models'],
      [ROUTES.verdictPrecision, '/api/verdicts/precision'],
    ];
    for (const [r, url] of reads) {
      const res = await t.http.get(url).set(auth).expect(r.status);
      const parsed = r.response!.safeParse(res.body);
      expect(parsed.success ? null : parsed.error.issues.slice(0, 3), url).toBeNull();
    }
    expect(ROUTES.createRun.response.safeParse(run.body).success).toBe(true);
  });
});
