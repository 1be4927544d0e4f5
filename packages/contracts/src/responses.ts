/**
 * Shapes of the API's JSON responses: the API's handlers return them and the dashboard reads them,
 * so a field renamed on one side fails the other's type check.
 */
import type { TurnDiagnostics } from '@starpo/envs';
import type { MetricSeries, RunSummary, TrajectorySummary } from './api.js';
import type { RoleName } from './roles.js';

/** GET /api/runs/:id (and every call that changes a run). */
export type RunDetail = RunSummary & {
  config: Record<string, unknown>;
  /** The run's page on the dashboard (clients print it). */
  webUrl: string;
  notes: string;
  error: string | null;
  clonedFromId: string | null;
  resumeCount: number;
};

/** GET /api/metrics: one run's series of one key. */
export type RunMetricSeries = MetricSeries & { runId: string };

/** GET /api/runs/:id/checkpoints. */
export interface CheckpointInfo {
  id: string;
  step: number;
  kind: string;
  format: string;
  sizeBytes: number;
  sha256: string;
  createdAt: string;
}

/** GET /api/runs/:id/logs. */
export interface LogLine {
  id: string;
  level: string;
  /** Set on warnings (RUN_WARNING_CODES). */
  code: string | null;
  message: string;
  at: string;
}

/** GET /api/workers. `lost`: no heartbeat for the stale timeout. */
export interface WorkerInfo {
  id: string;
  name: string;
  host: string;
  backend: string;
  device: string;
  hasGpu: boolean;
  memoryBytes: number;
  status: 'idle' | 'busy' | 'offline' | 'lost';
  /** Another team's run is shown as `{ id: null, name: 'another team' }`. */
  currentRun: { id: string | null; name: string } | null;
  lastHeartbeat: string;
  startedAt: string;
}

/** GET /api/base-models: shipped and from-scratch ones first, then the team's pretrained ones. */
export interface BaseModelInfo {
  id: string;
  name: string;
  source: string;
  description?: string;
  metrics: unknown;
  createdAt?: string;
}

/** What is stored of a turn as written (the database's insert takes these too). */
export interface StoredTurnFields {
  index: number;
  observation: string;
  rawReply: string;
  think: string;
  answer: string;
  parsedActions: string[];
  validActions: string[];
  formatOk: boolean;
  effectiveCount: number;
  reward: number;
  done: boolean;
  promptTokens: number;
  responseTokens: number;
  meanLogProb: number | null;
  meanEntropy: number | null;
}

/** One turn of GET /api/trajectories/:id. */
export interface TrajectoryTurn extends StoredTurnFields {
  /** A drawable state, or (ingested text the server could not read) `{ missing: why }`. */
  stateSnapshot: unknown;
  actionsValid: boolean;
  advantage: number | null;
  diagnostics: TurnDiagnostics | null;
}

/** GET /api/trajectories/:id: a trajectory with every turn (for replay). */
export interface TrajectoryDetail extends TrajectorySummary {
  finalSnapshot: unknown;
  turns: TrajectoryTurn[];
}

/** GET /api/team/members. */
export interface TeamMember {
  userId: string;
  email: string;
  name: string;
  role: RoleName;
  joinedAt: string;
}

/** GET /api/team/invites (an owner sees expired ones too, to tell why a link failed). */
export interface InviteInfo {
  id: string;
  role: RoleName;
  email: string | null;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
}

/** POST /api/team/invites: the token is shown this once. */
export interface CreatedInvite {
  id: string;
  token: string;
  role: RoleName;
  email: string | null;
  expiresAt: string;
}

/** GET /api/tokens (never the secret). */
export interface TokenInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** POST /api/tokens: the secret is shown this once. */
export type CreatedToken = TokenInfo & { token: string };
