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
