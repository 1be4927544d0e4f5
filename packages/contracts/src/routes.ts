/**
 * Every HTTP route of the API, declared once: method, path, the least role, success status, request
 * parts and response as zod schemas. The API mounts its handlers from these (apps/api/src/route.ts:
 * routing, role check and validation), serves the OpenAPI document built from them, and the dashboard's
 * client takes its types from them. Adding a route means one entry here plus its handler.
 */
import {
  cloneRunSchema,
  createBaseModelSchema,
  createInviteSchema,
  createRunSchema,
  createTeamSchema,
  createTokenSchema,
  diagnosticsQuerySchema,
  diagnosticsSummarySchema,
  finishRunSchema,
  ingestMetricsSchema,
  ingestTrajectoriesSchema,
  joinTeamSchema,
  listRunsQuerySchema,
  loginSchema,
  logsQuerySchema,
  meSchema,
  metricSeriesSchema,
  metricsQuerySchema,
  pageSchema,
  runSummarySchema,
  signupSchema,
  switchTeamSchema,
  trajectoriesQuerySchema,
  trajectorySummarySchema,
  updateMemberSchema,
  updateRunSchema,
  pruneRunSchema,
} from './api.js';
import { durationEstimateQuerySchema, durationEstimateSchema } from './duration-estimate.js';
import { envInfoSchema, registerEnvSchema } from './envs-info.js';
import { runMetricColumnsSchema } from './metric-columns.js';
import {
  baseModelInfoSchema,
  checkpointInfoSchema,
  pruneResultSchema,
  createdInviteSchema,
  createdTokenSchema,
  inviteInfoSchema,
  logLineSchema,
  runDetailSchema,
  runMetricSeriesSchema,
  teamMemberSchema,
  tokenInfoSchema,
  trajectoryDetailSchema,
  workerInfoSchema,
} from './responses.js';
import type { RoleName } from './roles.js';
import { claimVerdictSchema, claimVerdictViewSchema, teamVerdictSummarySchema } from './verdicts.js';
import { z } from './zod.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
/** `public`: no sign-in; otherwise the least team role that may call the route. */
export type RouteRole = 'public' | RoleName;

export interface RouteContract {
  method: HttpMethod;
  /** Express style: `/api/runs/:id`. */
  path: string;
  role: RouteRole;
  /** The success status. */
  status: number;
  tag: string;
  summary: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The JSON response; absent when the route answers with no body or with `produces`. */
  response?: z.ZodType;
  /** A non-JSON response's content type (a stream or a file). */
  produces?: string;
  /** Optional request headers the route reads, with what they do. */
  headers?: Record<string, string>;
  /**
   * Error statuses the handler itself can answer, each with when. Those the route's shape implies
   * (400 for a body or query, 401 and 503 for a signed-in route, 403 for a role above viewer or a
   * write, 404 for a path parameter, 413 and 415 for a body) follow from the rest of the contract.
   */
  errors?: Readonly<Record<number, string>>;
}

/** 503 for a public route that reads the database (signed-in routes imply it). */
const dbDown = {
  503: 'The database is unreachable (`database_unavailable`), or every database connection is busy (`server_busy`, with `Retry-After`); retry shortly',
} as const;
/** 403 of the routes that act on a run (runOwnershipRefusal in roles.ts). */
const othersRun = { 403: 'A member acting on another member’s run (its creator, team owners and administrators may)' } as const;

// `const` keeps each entry's literal types, so the client infers its path, body and response
const route = <const R extends RouteContract>(r: R): R => r;
const ok = { role: 'viewer', status: 200 } as const;

export const ROUTES = {
  health: route({
    ...ok,
    method: 'GET',
    path: '/health',
    role: 'public',
    tag: 'system',
    summary: 'Database reachable and migrations current (503 otherwise)',
    response: z.object({
      status: z.literal('ok'),
      database: z.literal('up'),
      migrations: z.object({ applied: z.number(), pending: z.array(z.string()) }),
    }),
    errors: {
      503: 'The database is unreachable (`database_unavailable`) or migrations are pending (`migrations_pending`, named in `details`)',
    },
  }),
  envs: route({
    ...ok,
    method: 'GET',
    path: '/api/envs',
    role: 'public',
    tag: 'environments',
    summary: "Environments with config JSON Schemas: the built-in ones, and the team's registered ones for a signed-in caller",
    response: z.array(envInfoSchema),
  }),
  registerEnv: route({
    method: 'POST',
    path: '/api/envs',
    role: 'member',
    status: 201,
    tag: 'environments',
    summary: 'Register an environment served through the protocol; a worker fetches its description',
    body: registerEnvSchema,
    response: envInfoSchema,
    errors: {
      400: 'A field is wrong, or `cwd` is not a folder under ENV_ROOTS (named in `details`)',
      409: 'The team has an environment of that name, or a built-in one has it',
    },
  }),
  deleteEnv: route({
    method: 'DELETE',
    path: '/api/envs/:name',
    role: 'member',
    status: 204,
    tag: 'environments',
    summary: 'Remove a registered environment (runs keep the address they started with)',
  }),
  envPreview: route({
    ...ok,
    method: 'GET',
    path: '/api/envs/:name/preview',
    role: 'public',
    tag: 'system',
    summary: 'Render an environment at a seed',
    query: z.object({
      seed: z.string().optional().describe('An integer (0)'),
      config: z.string().optional().describe("The environment's config as JSON"),
    }),
    response: z.object({
      observation: z.string(),
      instructions: z.string(),
      actions: z.array(z.string()),
      snapshot: z.unknown(),
    }),
    errors: {
      422: 'Generation went over its time or state budget (`generation_over_budget`, naming the setting to lower)',
      429: 'More than 120 previews a minute from this address, or more than 8 waiting',
    },
  }),
  authSetup: route({
    ...ok,
    method: 'GET',
    path: '/api/auth/setup',
    role: 'public',
    tag: 'auth',
    summary: 'Whether the deployment has no account yet',
    response: z.object({ needsSetup: z.boolean() }),
    errors: dbDown,
  }),
  signup: route({
    method: 'POST',
    path: '/api/auth/signup',
    role: 'public',
    status: 201,
    tag: 'auth',
    summary: 'First account creates the team; later ones bring an invite',
    body: signupSchema,
    response: meSchema,
    errors: {
      ...dbDown,
      403: 'The deployment has teams already and no invite was sent',
      409: 'An account with this email exists: sign in',
      429: 'More than AUTH_RATE_LIMIT sign-ups and sign-ins a minute from this address',
    },
  }),
  login: route({
    ...ok,
    method: 'POST',
    path: '/api/auth/login',
    role: 'public',
    tag: 'auth',
    summary: 'Sets the HTTP-only session cookie (10 a minute per address)',
    body: loginSchema,
    response: meSchema,
    errors: {
      ...dbDown,
      401: 'Wrong email or password',
      429: 'More than 10 sign-ins a minute from this address',
    },
  }),
  logout: route({ ...ok, method: 'POST', path: '/api/auth/logout', status: 204, tag: 'auth', summary: 'Ends the session' }),
  me: route({ ...ok, method: 'GET', path: '/api/auth/me', tag: 'auth', summary: 'The caller, team and role', response: meSchema }),
  session: route({
    ...ok,
    method: 'GET',
    path: '/api/auth/session',
    role: 'public',
    tag: 'auth',
    summary: 'The caller, team and role, or `me: null` when signed out (200 either way, for pages that open signed out)',
    response: z.object({ me: meSchema.nullable() }),
    errors: dbDown,
  }),
  switchTeam: route({
    ...ok,
    method: 'POST',
    path: '/api/auth/team',
    tag: 'auth',
    summary: 'The session acts for another of the user’s teams (API tokens stay with theirs)',
    body: switchTeamSchema,
    response: meSchema,
    errors: {
      404: 'The user is not in that team',
      409: 'Sent with an API token, which stays with the team it was made in',
    },
  }),
  teams: route({
    ...ok,
    method: 'GET',
    path: '/api/teams',
    tag: 'team',
    summary: 'The caller’s teams, with the role in each',
    response: meSchema.shape.teams,
  }),
  createTeam: route({
    ...ok,
    method: 'POST',
    path: '/api/teams',
    status: 201,
    tag: 'team',
    summary: 'An administrator of the deployment creates a team, and owns it',
    body: createTeamSchema,
    response: z.object({ id: z.string(), name: z.string() }),
    errors: { 403: 'Only an administrator of the deployment creates teams' },
  }),
  joinTeam: route({
    ...ok,
    method: 'POST',
    path: '/api/team/join',
    tag: 'team',
    summary: 'Join another team with an invite of that team',
    body: joinTeamSchema,
    response: meSchema,
    errors: { 409: 'The user is a member of that team already' },
  }),
  members: route({
    ...ok,
    method: 'GET',
    path: '/api/team/members',
    tag: 'team',
    summary: 'Members and roles',
    response: z.array(teamMemberSchema),
  }),
  createInvite: route({
    method: 'POST',
    path: '/api/team/invites',
    role: 'owner',
    status: 201,
    tag: 'team',
    summary: 'Create an invite (token shown once)',
    body: createInviteSchema,
    response: createdInviteSchema,
  }),
  invites: route({
    ...ok,
    method: 'GET',
    path: '/api/team/invites',
    role: 'owner',
    tag: 'team',
    summary: 'Invites not yet accepted (expired ones flagged)',
    response: z.array(inviteInfoSchema),
  }),
  revokeInvite: route({
    method: 'DELETE',
    path: '/api/team/invites/:id',
    role: 'owner',
    status: 204,
    tag: 'team',
    summary: 'Revoke an invite',
  }),
  setRole: route({
    method: 'PATCH',
    path: '/api/team/members/:userId',
    role: 'owner',
    status: 200,
    tag: 'team',
    summary: 'Change a role',
    body: updateMemberSchema,
    response: teamMemberSchema,
    errors: { 409: 'The team would be left without an owner' },
  }),
  createToken: route({
    ...ok,
    method: 'POST',
    path: '/api/tokens',
    status: 201,
    tag: 'auth',
    summary: 'Create an API token (secret shown once)',
    body: createTokenSchema,
    response: createdTokenSchema,
  }),
  tokens: route({
    ...ok,
    method: 'GET',
    path: '/api/tokens',
    tag: 'auth',
    summary: 'Your tokens, without secrets',
    response: z.array(tokenInfoSchema),
  }),
  revokeToken: route({ ...ok, method: 'DELETE', path: '/api/tokens/:id', status: 204, tag: 'auth', summary: 'Revoke a token' }),
  createRun: route({
    method: 'POST',
    path: '/api/runs',
    role: 'member',
    status: 201,
    tag: 'runs',
    summary: 'Queue a run from a preset plus overrides, or create an external run',
    body: createRunSchema,
    response: runDetailSchema,
    headers: {
      'Idempotency-Key':
        'Up to 255 visible ASCII characters, one per request. A key the caller (this API token, or this user signed in) used within 24 h creates nothing: with the same body the answer is 200 with that first run (header Idempotent-Replayed: true), with another body 422 idempotency_key_reused.',
    },
    errors: { 422: 'The Idempotency-Key was used with a different body within 24 h (`idempotency_key_reused`)' },
  }),
  runs: route({
    ...ok,
    method: 'GET',
    path: '/api/runs',
    tag: 'runs',
    summary: 'List with filters, sort and cursor pagination',
    query: listRunsQuerySchema,
    response: pageSchema(runSummarySchema),
  }),
  run: route({ ...ok, method: 'GET', path: '/api/runs/:id', tag: 'runs', summary: 'One run with its config', response: runDetailSchema }),
  updateRun: route({
    method: 'PATCH',
    path: '/api/runs/:id',
    role: 'member',
    status: 200,
    tag: 'runs',
    summary: 'Update name, tags, notes',
    body: updateRunSchema,
    response: runDetailSchema,
    errors: othersRun,
  }),
  cancelRun: route({
    method: 'POST',
    path: '/api/runs/:id/cancel',
    role: 'member',
    status: 202,
    tag: 'runs',
    summary: 'Cancel (409 when finished)',
    response: runDetailSchema,
    errors: { ...othersRun, 409: 'The run has finished already' },
  }),
  cloneRun: route({
    method: 'POST',
    path: '/api/runs/:id/clone',
    role: 'member',
    status: 201,
    tag: 'runs',
    summary: 'New run from this config plus overrides',
    body: cloneRunSchema,
    response: runDetailSchema,
  }),
  resumeRun: route({
    method: 'POST',
    path: '/api/runs/:id/resume',
    role: 'member',
    status: 202,
    tag: 'runs',
    summary: 'Requeue a failed or cancelled run from its last checkpoint',
    response: runDetailSchema,
    errors: { ...othersRun, 409: 'The run is external, or neither failed nor cancelled' },
  }),
  deleteRun: route({
    method: 'DELETE',
    path: '/api/runs/:id',
    role: 'member',
    status: 204,
    tag: 'runs',
    summary: 'Delete with all its data (run owner or team owner)',
    errors: { ...othersRun, 409: 'The run is running on a worker: cancel it first' },
  }),
  runMetrics: route({
    ...ok,
    method: 'GET',
    path: '/api/runs/:id/metrics',
    tag: 'metrics',
    summary: 'Metric series of a run (JSON, CSV, or columns: parallel step, value and time arrays)',
    query: metricsQuerySchema.omit({ runs: true }),
    response: z.union([z.array(metricSeriesSchema), z.array(runMetricColumnsSchema.omit({ runId: true }))]),
  }),
  metrics: route({
    ...ok,
    method: 'GET',
    path: '/api/metrics',
    tag: 'metrics',
    summary: 'Metric series of several runs (JSON, CSV, or columns: parallel step, value and time arrays)',
    query: metricsQuerySchema,
    response: z.union([z.array(runMetricSeriesSchema), z.array(runMetricColumnsSchema)]),
  }),
  metricKeys: route({
    ...ok,
    method: 'GET',
    path: '/api/runs/:id/metric-keys',
    tag: 'metrics',
    summary: 'Metric keys a run has',
    response: z.array(z.string()),
  }),
  trajectories: route({
    ...ok,
    method: 'GET',
    path: '/api/runs/:id/trajectories',
    tag: 'trajectories',
    summary: 'Filtered page of trajectories',
    query: trajectoriesQuerySchema,
    response: pageSchema(trajectorySummarySchema),
  }),
  exportTrajectories: route({
    ...ok,
    method: 'GET',
    path: '/api/runs/:id/trajectories.jsonl',
    tag: 'trajectories',
    summary: 'Export with turns, one JSON a line',
    query: trajectoriesQuerySchema.omit({ limit: true, cursor: true }),
    produces: 'application/x-ndjson',
  }),
  trajectory: route({
    ...ok,
    method: 'GET',
    path: '/api/trajectories/:id',
    tag: 'trajectories',
    summary: 'One trajectory with every turn and state snapshot',
    response: trajectoryDetailSchema,
  }),
  diagnostics: route({
    ...ok,
    method: 'GET',
    path: '/api/runs/:id/diagnostics',
    tag: 'trajectories',
    summary: 'Reasoning diagnostics: flag counts and the most frequent contradicted claims in a step range, with example turns',
    query: diagnosticsQuerySchema,
    response: diagnosticsSummarySchema,
  }),
  markClaim: route({
    method: 'POST',
    path: '/api/trajectories/:id/turns/:turn/verdicts',
    role: 'member',
    status: 201,
    tag: 'trajectories',
    summary: "Mark the checker's flag on a sentence right or wrong (or an unflagged sentence wrong); one per sentence and team",
    body: claimVerdictSchema,
    response: claimVerdictViewSchema,
    errors: { 422: 'The checker did not flag this sentence: an unflagged sentence can only be marked wrong' },
  }),
  verdicts: route({
    ...ok,
    method: 'GET',
    path: '/api/trajectories/:id/verdicts',
    tag: 'trajectories',
    summary: "The team's verdicts on a trajectory's sentences",
    response: z.array(claimVerdictViewSchema),
  }),
  verdictPrecision: route({
    ...ok,
    method: 'GET',
    path: '/api/verdicts/precision',
    tag: 'trajectories',
    summary: "The checker's precision on the team's verdicts, overall and per reading rule, with counts",
    response: teamVerdictSummarySchema,
  }),
  exportVerdicts: route({
    ...ok,
    method: 'GET',
    path: '/api/verdicts.jsonl',
    tag: 'trajectories',
    summary: "The team's verdicts as labelled think texts (held-out format), one JSON a line, for bench:diagnostics --set",
    produces: 'application/x-ndjson',
  }),
  checkpoints: route({
    ...ok,
    method: 'GET',
    path: '/api/runs/:id/checkpoints',
    tag: 'checkpoints',
    summary: 'Checkpoint files of a run',
    response: z.array(checkpointInfoSchema),
  }),
  pruneRun: route({
    method: 'POST',
    path: '/api/runs/:id/prune',
    role: 'member',
    status: 200,
    tag: 'runs',
    summary: 'Delete old checkpoints and raw trajectories by a keep-last/keep-best policy; metrics stay (run owner or team owner)',
    body: pruneRunSchema,
    response: pruneResultSchema,
    errors: othersRun,
  }),
  downloadCheckpoint: route({
    ...ok,
    method: 'GET',
    path: '/api/checkpoints/:id/download',
    tag: 'checkpoints',
    summary: 'Stream a checkpoint file (sha256 checked)',
    produces: 'application/octet-stream',
  }),
  checkpointArchive: route({
    ...ok,
    method: 'GET',
    path: '/api/runs/:id/checkpoints/archive',
    tag: 'checkpoints',
    summary: 'One checkpoint step as a streamed tar with SHA256SUMS (`?step=`, default the latest complete one)',
    query: z.object({ step: z.coerce.number().int().min(0).optional() }).strict(),
    produces: 'application/x-tar',
  }),
  logs: route({
    ...ok,
    method: 'GET',
    path: '/api/runs/:id/logs',
    tag: 'runs',
    summary: 'Log lines after id `after` (`warnings=1`: only the warnings)',
    query: logsQuerySchema,
    response: z.array(logLineSchema),
  }),
  ingestMetrics: route({
    method: 'POST',
    path: '/api/runs/:id/ingest/metrics',
    role: 'member',
    status: 200,
    tag: 'external runs',
    summary: 'Batch of ≤1,000 points (≤1 MB), idempotent on run+key+step',
    body: ingestMetricsSchema,
    response: z.object({ accepted: z.number() }),
    errors: {
      409: 'Not an open external run (a worker’s run, or finished), or the run changed during the write: send again',
      429: 'More than INGEST_RATE_LIMIT ingestion requests a minute from this address',
    },
  }),
  ingestTrajectories: route({
    method: 'POST',
    path: '/api/runs/:id/ingest/trajectories',
    role: 'member',
    status: 200,
    tag: 'external runs',
    summary: 'Batch of trajectories with turns, idempotent',
    body: ingestTrajectoriesSchema,
    response: z.object({ accepted: z.number(), diagnosed: z.number() }),
    errors: {
      409: 'Not an open external run: a worker’s run, or one that has finished',
      429: 'More than INGEST_RATE_LIMIT ingestion requests a minute from this address',
    },
  }),
  finishRun: route({
    method: 'POST',
    path: '/api/runs/:id/ingest/finish',
    role: 'member',
    status: 200,
    tag: 'external runs',
    summary: 'Final status of an external run',
    body: finishRunSchema,
    response: runDetailSchema,
    errors: { 409: 'Not an external run' },
  }),
  workers: route({
    ...ok,
    method: 'GET',
    path: '/api/workers',
    tag: 'system',
    summary: 'Workers with backend, device, status, current run, heartbeat',
    response: z.array(workerInfoSchema),
  }),
  durationEstimate: route({
    ...ok,
    method: 'GET',
    path: '/api/duration-estimate',
    tag: 'runs',
    summary:
      'How long a run of a preset takes a token: measured on the online workers, else by the last finished runs, else a fixed figure',
    query: durationEstimateQuerySchema,
    response: durationEstimateSchema,
  }),
  baseModels: route({
    ...ok,
    method: 'GET',
    path: '/api/base-models',
    tag: 'base models',
    summary: 'Base models the team can train from',
    response: z.array(baseModelInfoSchema),
  }),
  createBaseModel: route({
    method: 'POST',
    path: '/api/base-models',
    role: 'member',
    status: 202,
    tag: 'base models',
    summary: 'Queue a pretrain job that registers a base model',
    body: createBaseModelSchema,
    response: runDetailSchema,
    errors: { 409: 'A base model of that name exists or is being pretrained' },
  }),
  openapi: route({
    ...ok,
    method: 'GET',
    path: '/api/openapi.json',
    role: 'public',
    tag: 'system',
    summary: 'This document',
    response: z.record(z.string(), z.unknown()),
  }),
  docs: route({ ...ok, method: 'GET', path: '/api/docs', role: 'public', tag: 'system', summary: 'Swagger UI', produces: 'text/html' }),
  docsScript: route({
    ...ok,
    method: 'GET',
    path: '/api/docs/init.js',
    role: 'public',
    tag: 'system',
    summary: "Swagger UI's start script",
    produces: 'text/javascript',
  }),
} as const satisfies Record<string, RouteContract>;

export type RouteName = keyof typeof ROUTES;
export type Route = (typeof ROUTES)[RouteName];

/** The path's `:name` parameters, as an object type (`/api/runs/:id` → `{ id: string }`). */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, never>;

/** What a route answers with (parsed JSON), `void` for no body. */
export type ResponseOf<R extends RouteContract> = R['response'] extends z.ZodType ? z.output<R['response']> : void;
/** A route's request body, as the caller writes it (defaults may be left out). */
export type BodyOf<R extends RouteContract> = R['body'] extends z.ZodType ? z.input<R['body']> : never;
/** A route's query, as the caller writes it. */
export type QueryOf<R extends RouteContract> = R['query'] extends z.ZodType ? z.input<R['query']> : never;

/** `/api/runs/:id` with `{ id: 'x' }` → `/api/runs/x` (each value URL-encoded). */
export function fillPath(path: string, params: Record<string, string | number> = {}): string {
  return path.replace(/:(\w+)/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`${path}: missing path parameter "${name}"`);
    return encodeURIComponent(String(v));
  });
}
