export * from './client.js';
export * from './migrate.js';
export * from './embedded.js';
export * from './generated/prisma/client.js';
export * from './queries/metrics.js';
export * from './queries/checkpoints.js';
export * from './queries/runs.js';
export * from './queries/trajectories.js';
