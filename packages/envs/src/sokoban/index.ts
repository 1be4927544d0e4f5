import type { EnvDefinition } from '../registry.js';
import type { SokobanSnapshot } from '../types.js';
import { parseSokobanObservation, sokobanSnapshotSchema } from './observation.js';
import { SOKOBAN_LEGEND, SokobanEnv, renderSokoban, sokobanConfigSchema } from './env.js';

export const sokoban: EnvDefinition<typeof sokobanConfigSchema, SokobanSnapshot> = {
  name: 'sokoban',
  title: 'Sokoban',
  description: 'Push every box onto a target. Irreversible moves make planning necessary.',
  legend: SOKOBAN_LEGEND,
  configSchema: sokobanConfigSchema,
  rolloutDefaults: { maxTurns: 5, maxActionsPerTurn: 5, maxActionsPerTraj: 10 },
  create: (config) => new SokobanEnv(config),
  renderSnapshot: (s) => renderSokoban(s),
  parseObservation: parseSokobanObservation,
  snapshotSchema: sokobanSnapshotSchema,
};
