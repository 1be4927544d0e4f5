import type { EnvDefinition } from '../registry.js';
import type { FrozenLakeSnapshot } from '../types.js';
import { frozenLakeSnapshotSchema, parseFrozenLakeObservation } from './observation.js';
import { FROZENLAKE_LEGEND, FrozenLakeEnv, frozenLakeConfigSchema, renderFrozenLake } from './env.js';

export const frozenlake: EnvDefinition<typeof frozenLakeConfigSchema, FrozenLakeSnapshot> = {
  name: 'frozenlake',
  title: 'FrozenLake',
  description: 'Reach the goal on slippery ice without falling into a hole. Moves are stochastic.',
  legend: FROZENLAKE_LEGEND,
  configSchema: frozenLakeConfigSchema,
  rolloutDefaults: { maxTurns: 5, maxActionsPerTurn: 5, maxActionsPerTraj: 10 },
  create: (config) => new FrozenLakeEnv(config),
  renderSnapshot: (s) => renderFrozenLake(s),
  parseObservation: parseFrozenLakeObservation,
  snapshotSchema: frozenLakeSnapshotSchema,
};
