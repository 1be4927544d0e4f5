import type { EnvDefinition } from '../registry.js';
import { z } from '../zod.js';
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
  // The bandit's text names the arms but not which is the risky one, so no state can be read from it.
  parseObservation: () => ({ ok: false, reason: 'a Bandit observation does not say which arm is the risky one' }),
  snapshotSchema: z.object({
    env: z.literal('bandit'),
    arms: z.array(z.object({ name: z.string(), risk: z.enum(['low', 'high']) })).min(1),
    chosen: z.string().nullable(),
    reward: z.number().nullable(),
    done: z.boolean(),
    success: z.boolean(),
  }),
};
