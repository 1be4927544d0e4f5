import type { RunConfig } from '@starpo/contracts';
import type { RolloutSettings } from './rollout.js';

/** The rollout settings of a run config (training, validation and evaluation use the same). */
export function rolloutSettings(c: RunConfig): RolloutSettings {
  return {
    maxTurns: c.rollout.maxTurns,
    maxActionsPerTurn: c.rollout.maxActionsPerTurn,
    maxActionsPerTraj: c.rollout.maxActionsPerTraj,
    maxResponseWords: 100,
    enableThink: c.format.enableThink,
    actionSeparator: c.format.actionSeparator,
    formatPenalty: c.format.formatPenalty,
    contextWindow: c.rollout.contextWindow,
    lastKTurns: c.rollout.lastKTurns,
    maxContextTokens: c.rollout.maxContextTokens,
  };
}
