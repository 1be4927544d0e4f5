import type { EnvDefinition } from '../registry.js';
import type { BanditSnapshot } from '../types.js';
import { BanditEnv, banditConfigSchema, renderBandit } from './env.js';

export const bandit: EnvDefinition<typeof banditConfigSchema, BanditSnapshot> = {
  name: 'bandit',
  title: 'Bandit',
  description: 'Pick one of two named arms: a sure small payout or a risky large one. Tests symbolic priors.',
  legend: null,
  configSchema: banditConfigSchema,
  rolloutDefaults: { maxTurns: 1, maxActionsPerTurn: 1, maxActionsPerTraj: 1 },
  create: (config) => new BanditEnv(config),
  renderSnapshot: (s) => renderBandit(s),
};
