import { z } from './zod.js';

/** Scale of an environment's potential-based reward shaping (its `rewardShaping` setting). */
export const shapingScaleSchema = z.number().min(0).max(100).default(1);

/** Environment config keys that change only the reward: supervised pretraining never sees them. */
export const REWARD_ONLY_CONFIG_KEYS: ReadonlySet<string> = new Set(['rewardShaping', 'shapingScale']);
