/**
 * Shapes of the API's JSON responses as zod schemas: the route contracts (routes.ts) publish them in
 * the OpenAPI document, the API's handlers return their types and the dashboard reads them, so a field
 * renamed on one side fails the other's type check.
 */
import type { TurnDiagnostics } from '@starpo/envs';
import { metricSeriesSchema, runSummarySchema, trajectorySummarySchema } from './api.js';
import { engineSchema } from './engine.js';
import { ROLES } from './roles.js';
import { z } from './zod.js';

const role = z.enum(ROLES);

/** GET /api/runs/:id (and every call that changes a run). */
export const runDetailSchema = runSummarySchema.extend({
  config: z.record(z.string(), z.unknown()),
  /** The run's page on the dashboard (clients print it). */
  webUrl: z.string(),
  notes: z.string(),
  error: z.string().nullable(),
  clonedFromId: z.string().nullable(),
  resumeCount: z.number(),
});
export type RunDetail = z.infer<typeof runDetailSchema>;

/** GET /api/metrics: one run's series of one key. */
export const runMetricSeriesSchema = metricSeriesSchema.extend({ runId: z.string() });
export type RunMetricSeries = z.infer<typeof runMetricSeriesSchema>;

/** GET /api/runs/:id/checkpoints. */
export const checkpointInfoSchema = z.object({
  id: z.string(),
  step: z.number(),
  kind: z.string(),
  format: z.string(),
  sizeBytes: z.number(),
  sha256: z.string(),
  createdAt: z.string(),
});
export type CheckpointInfo = z.infer<typeof checkpointInfoSchema>;

/** POST /api/runs/:id/prune: what went (or, with dryRun, would go). */
export const pruneResultSchema = z.object({
  dryRun: z.boolean(),
  checkpoints: z.object({
    keptSteps: z.array(z.number()),
    deletedSteps: z.array(z.number()),
    files: z.number(),
    bytes: z.number(),
  }),
  trajectories: z.object({ deleted: z.number(), turns: z.number(), keptFromStep: z.number().nullable() }),
});
export type PruneResult = z.infer<typeof pruneResultSchema>;

/** GET /api/runs/:id/logs. */
export const logLineSchema = z.object({
  id: z.string(),
  level: z.string(),
  /** Set on warnings (RUN_WARNING_CODES). */
  code: z.string().nullable(),
  message: z.string(),
  at: z.string(),
});
export type LogLine = z.infer<typeof logLineSchema>;

/** GET /api/workers. `lost`: no heartbeat for the stale timeout. */
export const workerInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  host: z.string(),
  backend: z.string(),
  /** Whose kernels do the heavy products (ENGINES); `tfjs` on a CPU backend is the slow engine. */
  engine: engineSchema,
  /** The slow engine: tfjs kernels because the OpenBLAS addon is not built (FAST_ENGINE_FIX). */
  slowEngine: z.boolean(),
  device: z.string(),
  hasGpu: z.boolean(),
  memoryBytes: z.number(),
  status: z.enum(['idle', 'busy', 'offline', 'lost']),
  /** Another team's run is shown as `{ id: null, name: 'another team' }`. */
  currentRun: z.object({ id: z.string().nullable(), name: z.string() }).nullable(),
  lastHeartbeat: z.string(),
  startedAt: z.string(),
});
export type WorkerInfo = z.infer<typeof workerInfoSchema>;

/** GET /api/base-models: shipped and from-scratch ones first, then the team's pretrained ones. */
export const baseModelInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  source: z.string(),
  description: z.string().optional(),
  metrics: z.unknown(),
  createdAt: z.string().optional(),
});
export type BaseModelInfo = z.infer<typeof baseModelInfoSchema>;

/** What is stored of a turn as written (the database's insert takes these too). */
export const storedTurnFieldsSchema = z.object({
  index: z.number(),
  observation: z.string(),
  rawReply: z.string(),
  think: z.string(),
  answer: z.string(),
  parsedActions: z.array(z.string()),
  validActions: z.array(z.string()),
  formatOk: z.boolean(),
  effectiveCount: z.number(),
  reward: z.number(),
  done: z.boolean(),
  promptTokens: z.number(),
  responseTokens: z.number(),
  meanLogProb: z.number().nullable(),
  meanEntropy: z.number().nullable(),
});
export type StoredTurnFields = z.infer<typeof storedTurnFieldsSchema>;

/** One turn of GET /api/trajectories/:id. */
export const trajectoryTurnSchema = storedTurnFieldsSchema.extend({
  /** A drawable state, or (ingested text the server could not read) `{ missing: why }`. */
  stateSnapshot: z.unknown(),
  actionsValid: z.boolean(),
  advantage: z.number().nullable(),
  /** The reasoning checks' verdicts on the turn (the environments package defines the shape). */
  diagnostics: z
    .custom<TurnDiagnostics>()
    .meta({ type: 'object', description: 'Per-sentence claims with verdicts, flags and think/answer agreement' })
    .nullable(),
});
export type TrajectoryTurn = z.infer<typeof trajectoryTurnSchema>;

/** GET /api/trajectories/:id: a trajectory with every turn (for replay). */
export const trajectoryDetailSchema = trajectorySummarySchema.extend({
  finalSnapshot: z.unknown(),
  turns: z.array(trajectoryTurnSchema),
});
export type TrajectoryDetail = z.infer<typeof trajectoryDetailSchema>;

/** GET /api/team/members. */
export const teamMemberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role,
  joinedAt: z.string(),
});
export type TeamMember = z.infer<typeof teamMemberSchema>;

/** GET /api/team/invites (an owner sees expired ones too, to tell why a link failed). */
export const inviteInfoSchema = z.object({
  id: z.string(),
  role,
  email: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  expired: z.boolean(),
});
export type InviteInfo = z.infer<typeof inviteInfoSchema>;

/** POST /api/team/invites: the token is shown this once. */
export const createdInviteSchema = z.object({
  id: z.string(),
  token: z.string(),
  role,
  email: z.string().nullable(),
  expiresAt: z.string(),
});
export type CreatedInvite = z.infer<typeof createdInviteSchema>;

/** GET /api/tokens (never the secret). */
export const tokenInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type TokenInfo = z.infer<typeof tokenInfoSchema>;

/** POST /api/tokens: the secret is shown this once. */
export const createdTokenSchema = tokenInfoSchema.extend({ token: z.string() });
export type CreatedToken = z.infer<typeof createdTokenSchema>;
