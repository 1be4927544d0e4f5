import { OpenApiGeneratorV31, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { ROUTES, runConfigSchema, type RouteContract } from '@starpo/contracts';
import { z } from 'zod';

/** The one error shape every failure answers with. */
const errorSchema = z
  .object({ error: z.string(), message: z.string(), details: z.unknown().optional() })
  .meta({ id: 'Error', description: '400 (with details per field), 401, 403, 404, 409, 413, 422, 429, 431, 503' });

/** `/api/runs/:id/turns/:turn` → `/api/runs/{id}/turns/{turn}` */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function operation(r: RouteContract): RouteConfig {
  const names = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const params = names.length ? z.object(Object.fromEntries(names.map((n) => [n, z.string()]))) : undefined;
  const headers = Object.entries(r.headers ?? {}).map(([name, description]) =>
    z
      .string()
      .optional()
      .meta({ param: { name, in: 'header' }, description }),
  );
  const success = r.response
    ? { description: 'OK', content: { 'application/json': { schema: r.response } } }
    : r.produces
      ? { description: 'OK', content: { [r.produces]: { schema: z.string() } } }
      : { description: 'No content' };
  return {
    method: r.method.toLowerCase() as Lowercase<RouteContract['method']>,
    path: openApiPath(r.path),
    tags: [r.tag],
    summary: r.summary,
    ...(r.role === 'public' ? { security: [] } : { description: `Needs the ${r.role} role.` }),
    request: {
      ...(params ? { params } : {}),
      ...(r.query ? { query: r.query as z.ZodObject } : {}),
      ...(headers.length ? { headers } : {}),
      ...(r.body ? { body: { required: true, content: { 'application/json': { schema: r.body } } } } : {}),
    },
    responses: {
      [String(r.status)]: success,
      default: { description: 'Error', content: { 'application/json': { schema: errorSchema } } },
    },
  };
}

/** OpenAPI 3.1 document of every route, generated from the route contracts (request and response schemas). */
export function openApiDocument(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'API token from POST /api/tokens',
  });
  registry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: 'starpo_session' });
  for (const r of Object.values(ROUTES)) registry.registerPath(operation(r));
  // the run config is its own component: clients read it to build a config
  const runConfig = { type: 'schema' as const, schema: runConfigSchema.meta({ id: 'RunConfig' }) };
  return new OpenApiGeneratorV31([...registry.definitions, runConfig]).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'StarPO Studio API',
      version: '0.1.0',
      description: 'Runs, metrics, trajectories, checkpoints and team access. Live events: socket.io at /socket.io.',
    },
    security: [{ bearer: [] }, { session: [] }],
  }) as unknown as Record<string, unknown>;
}
