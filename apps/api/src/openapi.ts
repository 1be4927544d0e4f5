import { OpenApiGeneratorV31, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { ROUTES, runConfigSchema, type RouteContract, type RouteName } from '@starpo/contracts';
import { z } from 'zod';

/** The one error shape every failure answers with (errors.filter.ts). */
const errorSchema = z
  .object({
    error: z.string().describe('A stable name: `validation_failed`, `unauthorized`, `not_found`, `idempotency_key_reused`, …'),
    message: z.string().describe('What went wrong and what to do, for people'),
    details: z
      .unknown()
      .optional()
      .describe('`[{ path, message }]` per wrong field for a 400 `validation_failed`; `[]` when there is nothing per field'),
  })
  .meta({ id: 'Error', description: 'Every error answer: 4xx, 503, and 500 `internal_error`' });

/** `/api/runs/:id/turns/:turn` → `/api/runs/{id}/turns/{turn}` */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

const UNSAFE = new Set(['POST', 'PATCH', 'DELETE']);

/**
 * Every error status a route can answer, with when: those its shape implies (the global guards,
 * the body parser and `@Valid`) plus the ones its handler declares in `errors`.
 */
function errorStatuses(r: RouteContract): Map<number, string[]> {
  const out = new Map<number, string[]>();
  const add = (status: number, why: string) => out.set(status, [...(out.get(status) ?? []), why]);
  // RequestGuard refuses what Postgres cannot store in any query, so every route can answer 400
  add(
    400,
    r.body || r.query || r.headers
      ? 'A field of the request is wrong (`validation_failed`, each in `details`)'
      : 'The query string holds what Postgres cannot store: a NUL, an unpaired surrogate, nesting deeper than 32 (`validation_failed`)',
  );
  if (r.role !== 'public')
    add(401, 'No credentials (`unauthorized`), a revoked API token (`token_revoked`) or an unknown one (`invalid_token`)');
  if (r.role === 'member' || r.role === 'owner') add(403, `Below the ${r.role} role (\`forbidden\`)`);
  if (UNSAFE.has(r.method)) add(403, 'Sent with the session cookie from another origin (`cross_origin_refused`)');
  if (r.path.includes(':')) add(404, 'Not found in your team (another team’s data is not found either)');
  if (r.body) {
    add(413, 'The body is over 1 MB');
    add(415, 'The body is not `application/json`');
  }
  if (r.role !== 'public')
    add(
      503,
      'The database is unreachable (`database_unavailable`), or it is busy: no connection free, or a query ran past its timeout while the database still answers (`server_busy`, with `Retry-After`); retry shortly',
    );
  for (const [status, why] of Object.entries(r.errors ?? {})) add(Number(status), why);
  return new Map([...out].sort(([a], [b]) => a - b));
}

function operation(name: RouteName, r: RouteContract): RouteConfig {
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
  const error = (description: string) => ({ description, content: { 'application/json': { schema: errorSchema } } });
  // several reasons for one status: a Markdown list, which Swagger UI renders
  const text = (why: string[]) => (why.length === 1 ? why[0]! : why.map((w) => `- ${w}`).join('\n'));
  const errors = [...errorStatuses(r)].map(([status, why]) => [String(status), error(text(why))]);
  return {
    method: r.method.toLowerCase() as Lowercase<RouteContract['method']>,
    path: openApiPath(r.path),
    // the contract's key: stable, and what the dashboard's client calls the route too
    operationId: name,
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
      ...Object.fromEntries(errors),
      default: error('Any other failure: 500 `internal_error`, or 431 for a request line and headers over 16 KB'),
    },
  };
}

/**
 * OpenAPI 3.1 document of every route, generated from the route contracts (request and response
 * schemas): a pure function, so `npm run lint:openapi` writes it without starting the API.
 */
export function openApiDocument(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'API token from POST /api/tokens',
  });
  registry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: 'starpo_session' });
  for (const [name, r] of Object.entries(ROUTES)) registry.registerPath(operation(name as RouteName, r));
  // the run config is its own component: clients read it to build a config
  const runConfig = { type: 'schema' as const, schema: runConfigSchema.meta({ id: 'RunConfig' }) };
  return new OpenApiGeneratorV31([...registry.definitions, runConfig]).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'StarPO Studio API',
      version: '0.1.0',
      description: 'Runs, metrics, trajectories, checkpoints and team access. Live events: socket.io at /socket.io.',
    },
    // relative: the API's own origin, wherever it is deployed (the paths carry /api)
    servers: [{ url: '/', description: 'This API' }],
    security: [{ bearer: [] }, { session: [] }],
  }) as unknown as Record<string, unknown>;
}
