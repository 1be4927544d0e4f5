import type { EnvDefinition } from '../registry.js';
import type { SokobanSnapshot } from '../types.js';
import { parseSokobanObservation, sokobanSnapshotSchema } from './observation.js';
import { SOKOBAN_LEGEND, SokobanEnv, renderSokoban, sokobanConfigSchema } from './env.js';
import { ROLLOUT_GENERATION_LIMIT, worstCaseExploredStates } from './generate.js';

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
  rolloutGenerationIssue: (c, resets) => {
    // a typical reset explores one search's worth (the first try succeeds in rooms this large)
    const cells = c.rows * c.cols;
    if (worstCaseExploredStates(c) * cells * resets <= ROLLOUT_GENERATION_LIMIT) return null;
    const most = Math.floor(ROLLOUT_GENERATION_LIMIT / (resets * cells));
    return {
      path: ['maxExploredStates'],
      message: `a rollout resets ${resets} rooms of ${c.rows}×${c.cols} at once, more room generation than a step may spend; lower maxExploredStates to ${most} or less, or rollout.envGroups / rollout.validation.size (or use a smaller room)`,
    };
  },
};
