import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_ROLE_KEY, PUBLIC_KEY } from '../src/auth/actor.js';
import { DocsController } from '../src/docs.controller.js';
import { openApiDocument } from '../src/openapi.js';
import { startTestApi, type TestApi } from './helpers.js';

interface Route {
  /** `get /api/runs/{id}` */
  op: string;
  status: number;
  /** `public`, or the least role the guard lets through. */
  role: string;
}

/** The routes Nest serves, read from the controllers' decorators in the running application. */
function nestRoutes(t: TestApi): Route[] {
  const routes: Route[] = [];
  for (const mod of t.app.get(ModulesContainer).values())
    for (const wrapper of mod.controllers.values()) {
      const ctrl = wrapper.metatype as (new (...a: never[]) => object) | null;
      if (!ctrl || ctrl === DocsController) continue; // the document and its viewer are not part of the API they describe
      const base = String(Reflect.getMetadata(PATH_METADATA, ctrl) ?? '');
      for (const name of Object.getOwnPropertyNames(ctrl.prototype)) {
        const handler = (ctrl.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number]!.toLowerCase();
        const sub = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '/');
        const path = `/${[base, sub]
          .map((p) => p.replace(/^\/|\/$/g, ''))
          .filter(Boolean)
          .join('/')}`.replace(/:(\w+)/g, '{$1}');
        const meta = (key: string) => Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, ctrl);
        routes.push({
          op: `${method} ${path}`,
          status: meta(HTTP_CODE_METADATA) ?? (method === 'post' ? 201 : 200),
          role: meta(PUBLIC_KEY) ? 'public' : (meta(MIN_ROLE_KEY) ?? 'viewer'),
        });
      }
    }
  return routes;
}

/** The same facts as the OpenAPI document states them. */
function documentedRoutes(): Route[] {
  const doc = openApiDocument() as {
    paths: Record<string, Record<string, { responses: Record<string, unknown>; description?: string; security?: unknown[] }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      op: `${method} ${path}`,
      status: Number(Object.keys(op.responses).find((k) => k !== 'default')),
      role: op.security?.length === 0 ? 'public' : /the (\w+) role/.exec(op.description ?? '')![1]!,
    })),
  );
}

describe('the OpenAPI document matches the routes Nest serves', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi();
  });
  afterAll(() => t.close());

  it('documents every route, and only routes that exist, with its success status and role', () => {
    const byOp = (a: Route, b: Route) => a.op.localeCompare(b.op);
    const served = nestRoutes(t).sort(byOp);
    expect(served.length).toBeGreaterThan(30);
    expect(documentedRoutes().sort(byOp)).toEqual(served);
  });

  it('each route is reachable at the path Nest registered (a 404 from the router would mean a wrong path)', async () => {
    for (const r of nestRoutes(t)) {
      const [method, path] = r.op.split(' ') as [string, string];
      const url = path.replace(/\{\w+\}/g, '00000000-0000-0000-0000-000000000000');
      const res = await t.http[method as 'get'](url);
      // unauthenticated: 401 for guarded routes; anything but Nest's "Cannot GET" for public ones
      expect(String(res.body?.message ?? ''), r.op).not.toMatch(/^Cannot (GET|POST|PATCH|DELETE)/);
    }
  });
});
