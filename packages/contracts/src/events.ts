/**
 * Live events. Workers publish small notices through Postgres NOTIFY on {@link EVENTS_CHANNEL};
 * every API instance LISTENs, fetches the rest by id, and emits the socket.io events below to
 * the room of the run. Clients `subscribe` with the last step they saw and get a catch-up first.
 */
export const EVENTS_CHANNEL = 'starpo_events';

/** The NOTIFY payload (kept far below Postgres's 8 kB limit). */
export type RunNotice =
  | { run: string; type: 'status' }
  /** Metric points of steps `from`..`step` (just `step` when `from` is absent) were written. */
  | { run: string; type: 'metrics'; step: number; from?: number }
  | { run: string; type: 'trajectories'; step: number }
  | { run: string; type: 'log'; id: string };

/** A user's sessions, tokens or role changed: every API instance re-checks that user's live connections. */
export type AccessNotice = { type: 'access'; user: string };

export interface SubscribeRequest {
  runId: string;
  /** Catch up on metric points after this step (omit for the whole history). */
  afterStep?: number;
}

/** The acknowledgement of `subscribe`. */
export interface SubscribeAck {
  ok: boolean;
  status?: StatusEvent | null;
  /** Metric points after `afterStep`, a step an event; empty when `truncated`. */
  metrics?: MetricsEvent[];
  /** More points were missed than a catch-up carries (SUBSCRIBE_CATCH_UP_LIMIT): fetch them over HTTP. */
  truncated?: boolean;
  error?: string;
  message?: string;
}

/** At most this many metric points come with a `subscribe` acknowledgement. */
export const SUBSCRIBE_CATCH_UP_LIMIT = 5000;

export interface MetricsEvent {
  runId: string;
  step: number;
  values: Record<string, number>;
}

export interface StatusEvent {
  runId: string;
  status: string;
  currentStep: number;
  totalSteps: number;
  stopReason: string | null;
  cancelRequested: boolean;
}

export interface TrajectoriesEvent {
  runId: string;
  step: number;
  count: number;
  successRate: number;
  meanReward: number;
}

export interface LogEvent {
  runId: string;
  id: string;
  level: string;
  /** Set on warnings (RUN_WARNING_CODES). */
  code?: string | null;
  message: string;
  at: string;
}

/** Server → client event names. */
export const LIVE = { metrics: 'metrics', status: 'status', trajectories: 'trajectories', log: 'log' } as const;
