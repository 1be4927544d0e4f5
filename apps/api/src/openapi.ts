import {
  cloneRunSchema,
  createBaseModelSchema,
  createInviteSchema,
  createRunSchema,
  createTeamSchema,
  createTokenSchema,
  finishRunSchema,
  ingestMetricsSchema,
  ingestTrajectoriesSchema,
  joinTeamSchema,
  listRunsQuerySchema,
  loginSchema,
  metricsQuerySchema,
  runConfigSchema,
  signupSchema,
  switchTeamSchema,
  trajectoriesQuerySchema,
  diagnosticsQuerySchema,
  claimVerdictSchema,
  updateMemberSchema,
  updateRunSchema,
} from '@starpo/contracts';
import { z } from 'zod';

type Op = {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  tag: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  role?: 'viewer' | 'member' | 'owner' | 'public';
  status?: number;
  produces?: string;
  /** Optional request headers the route reads, with what they do. */
  headers?: Record<string, string>;
};

const json = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

/** Every route, with request schemas taken from the shared zod contracts (the same ones that validate). */
const OPS: Op[] = [
  { method: 'get', path: '/health', tag: 'system', summary: 'Database reachable and migrations current (503 otherwise)', role: 'public' },
  { method: 'get', path: '/api/envs', tag: 'system', summary: 'Environments with config JSON Schemas', role: 'public' },
  { method: 'get', path: '/api/envs/{name}/preview', tag: 'system', summary: 'Render an environment at a seed', role: 'public' },
  { method: 'get', path: '/api/auth/setup', tag: 'auth', summary: 'Whether the deployment has no account yet', role: 'public' },
  {
    method: 'post',
    path: '/api/auth/signup',
    tag: 'auth',
    summary: 'First account creates the team; later ones bring an invite',
    body: signupSchema,
    role: 'public',
    status: 201,
  },
  {
    method: 'post',
    path: '/api/auth/login',
    tag: 'auth',
    summary: 'Sets the HTTP-only session cookie (10 a minute per address)',
    body: loginSchema,
    role: 'public',
  },
  { method: 'post', path: '/api/auth/logout', tag: 'auth', summary: 'Ends the session', status: 204 },
  { method: 'get', path: '/api/auth/me', tag: 'auth', summary: 'The caller, team and role' },
  {
    method: 'post',
    path: '/api/auth/team',
    tag: 'auth',
    summary: 'The session acts for another of the user’s teams (API tokens stay with theirs)',
    body: switchTeamSchema,
  },
  { method: 'get', path: '/api/teams', tag: 'team', summary: 'The caller’s teams, with the role in each' },
  {
    method: 'post',
    path: '/api/teams',
    tag: 'team',
    summary: 'An administrator of the deployment creates a team, and owns it',
    body: createTeamSchema,
    status: 201,
  },
  { method: 'post', path: '/api/team/join', tag: 'team', summary: 'Join another team with an invite of that team', body: joinTeamSchema },
  { method: 'get', path: '/api/team/members', tag: 'team', summary: 'Members and roles' },
  {
    method: 'post',
    path: '/api/team/invites',
    tag: 'team',
    summary: 'Create an invite (token shown once)',
    body: createInviteSchema,
    role: 'owner',
    status: 201,
  },
  { method: 'get', path: '/api/team/invites', tag: 'team', summary: 'Invites not yet accepted (expired ones flagged)', role: 'owner' },
  { method: 'delete', path: '/api/team/invites/{id}', tag: 'team', summary: 'Revoke an invite', role: 'owner', status: 204 },
  { method: 'patch', path: '/api/team/members/{userId}', tag: 'team', summary: 'Change a role', body: updateMemberSchema, role: 'owner' },
  {
    method: 'post',
    path: '/api/tokens',
    tag: 'auth',
    summary: 'Create an API token (secret shown once)',
    body: createTokenSchema,
    status: 201,
  },
  { method: 'get', path: '/api/tokens', tag: 'auth', summary: 'Your tokens, without secrets' },
  { method: 'delete', path: '/api/tokens/{id}', tag: 'auth', summary: 'Revoke a token', status: 204 },
  {
    method: 'post',
    path: '/api/runs',
    tag: 'runs',
    summary: 'Queue a run from a preset plus overrides, or create an external run',
    body: createRunSchema,
    role: 'member',
    status: 201,
    headers: {
      'Idempotency-Key':
        'Up to 255 visible ASCII characters. A key the team used within 24 h creates nothing: the answer is 200 with that first run (header Idempotent-Replayed: true).',
    },
  },
  { method: 'get', path: '/api/runs', tag: 'runs', summary: 'List with filters, sort and cursor pagination', query: listRunsQuerySchema },
  { method: 'get', path: '/api/runs/{id}', tag: 'runs', summary: 'One run with its config' },
  { method: 'patch', path: '/api/runs/{id}', tag: 'runs', summary: 'Update name, tags, notes', body: updateRunSchema, role: 'member' },
  { method: 'post', path: '/api/runs/{id}/cancel', tag: 'runs', summary: 'Cancel (409 when finished)', role: 'member', status: 202 },
  {
    method: 'post',
    path: '/api/runs/{id}/clone',
    tag: 'runs',
    summary: 'New run from this config plus overrides',
    body: cloneRunSchema,
    role: 'member',
    status: 201,
  },
  {
    method: 'post',
    path: '/api/runs/{id}/resume',
    tag: 'runs',
    summary: 'Requeue a failed or cancelled run from its last checkpoint',
    role: 'member',
    status: 202,
  },
  {
    method: 'delete',
    path: '/api/runs/{id}',
    tag: 'runs',
    summary: 'Delete with all its data (run owner or team owner)',
    role: 'member',
    status: 204,
  },
  {
    method: 'get',
    path: '/api/runs/{id}/metrics',
    tag: 'metrics',
    summary: 'Metric series of a run (JSON, CSV, or columns: parallel step, value and time arrays)',
    query: metricsQuerySchema.omit({ runs: true }),
  },
  {
    method: 'get',
    path: '/api/metrics',
    tag: 'metrics',
    summary: 'Metric series of several runs (JSON, CSV, or columns: parallel step, value and time arrays)',
    query: metricsQuerySchema,
  },
  { method: 'get', path: '/api/runs/{id}/metric-keys', tag: 'metrics', summary: 'Metric keys a run has' },
  {
    method: 'get',
    path: '/api/runs/{id}/trajectories',
    tag: 'trajectories',
    summary: 'Filtered page of trajectories',
    query: trajectoriesQuerySchema,
  },
  {
    method: 'get',
    path: '/api/runs/{id}/trajectories.jsonl',
    tag: 'trajectories',
    summary: 'Export with turns, one JSON a line',
    query: trajectoriesQuerySchema.omit({ limit: true, cursor: true }),
    produces: 'application/x-ndjson',
  },
  { method: 'get', path: '/api/trajectories/{id}', tag: 'trajectories', summary: 'One trajectory with every turn and state snapshot' },
  {
    method: 'get',
    path: '/api/runs/{id}/diagnostics',
    tag: 'trajectories',
    summary: 'Reasoning diagnostics: flag counts and the most frequent contradicted claims in a step range, with example turns',
    query: diagnosticsQuerySchema,
  },
  {
    method: 'post',
    path: '/api/trajectories/{id}/turns/{turn}/verdicts',
    tag: 'trajectories',
    summary: "Mark the checker's flag on a sentence right or wrong (or an unflagged sentence wrong); one per sentence and team",
    body: claimVerdictSchema,
    role: 'member',
    status: 201,
  },
  {
    method: 'get',
    path: '/api/trajectories/{id}/verdicts',
    tag: 'trajectories',
    summary: "The team's verdicts on a trajectory's sentences",
  },
  {
    method: 'get',
    path: '/api/verdicts/precision',
    tag: 'trajectories',
    summary: "The checker's precision on the team's verdicts, overall and per reading rule, with counts",
  },
  {
    method: 'get',
    path: '/api/verdicts.jsonl',
    tag: 'trajectories',
    summary: "The team's verdicts as labelled think texts (held-out format), one JSON a line, for bench:diagnostics --set",
    produces: 'application/x-ndjson',
  },
  { method: 'get', path: '/api/runs/{id}/checkpoints', tag: 'checkpoints', summary: 'Checkpoint files of a run' },
  {
    method: 'get',
    path: '/api/checkpoints/{id}/download',
    tag: 'checkpoints',
    summary: 'Stream a checkpoint file (sha256 checked)',
    produces: 'application/octet-stream',
  },
  {
    method: 'get',
    path: '/api/runs/{id}/checkpoints/archive',
    tag: 'checkpoints',
    summary: 'One checkpoint step as a streamed tar with SHA256SUMS (`?step=`, default the latest complete one)',
    produces: 'application/x-tar',
  },
  { method: 'get', path: '/api/runs/{id}/logs', tag: 'runs', summary: 'Log lines after id `after`' },
  {
    method: 'post',
    path: '/api/runs/{id}/ingest/metrics',
    tag: 'external runs',
    summary: 'Batch of ≤1,000 points (≤1 MB), idempotent on run+key+step',
    body: ingestMetricsSchema,
    role: 'member',
  },
  {
    method: 'post',
    path: '/api/runs/{id}/ingest/trajectories',
    tag: 'external runs',
    summary: 'Batch of trajectories with turns, idempotent',
    body: ingestTrajectoriesSchema,
    role: 'member',
  },
  {
    method: 'post',
    path: '/api/runs/{id}/ingest/finish',
    tag: 'external runs',
    summary: 'Final status of an external run',
    body: finishRunSchema,
    role: 'member',
  },
  { method: 'get', path: '/api/workers', tag: 'system', summary: 'Workers with backend, device, status, current run, heartbeat' },
  { method: 'get', path: '/api/base-models', tag: 'base models', summary: 'Base models the team can train from' },
  {
    method: 'post',
    path: '/api/base-models',
    tag: 'base models',
    summary: 'Queue a pretrain job that registers a base model',
    body: createBaseModelSchema,
    role: 'member',
    status: 202,
  },
];

const ERROR = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string' }, message: { type: 'string' }, details: {} },
};

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPS) {
    const params: Record<string, unknown>[] = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    for (const [name, description] of Object.entries(op.headers ?? {}))
      params.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
    if (op.query) {
      const schema = json(op.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, s] of Object.entries(schema.properties ?? {}))
        params.push({ name, in: 'query', required: false, schema: s as never });
    }
    const ok = String(op.status ?? 200);
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      tags: [op.tag],
      summary: op.summary,
      ...(op.role !== 'public' ? { description: `Needs the ${op.role ?? 'viewer'} role.` } : { security: [] }),
      parameters: params,
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: json(op.body) } } } } : {}),
      responses: {
        [ok]: { description: 'OK', ...(op.produces ? { content: { [op.produces]: {} } } : {}) },
        default: {
          description: 'Error: 400 (with details per field), 401, 403, 404, 409, 413, 429, 503',
          content: { 'application/json': { schema: ERROR } },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'StarPO Studio API',
      version: '0.1.0',
      description: 'Runs, metrics, trajectories, checkpoints and team access. Live events: socket.io at /socket.io.',
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'API token from POST /api/tokens' },
        session: { type: 'apiKey', in: 'cookie', name: 'starpo_session' },
      },
      schemas: { RunConfig: json(runConfigSchema), Error: ERROR },
    },
    security: [{ bearer: [] }, { session: [] }],
    paths,
  };
}
