import { registerEnv } from './registry.js';
import { bandit } from './bandit/index.js';
import { frozenlake } from './frozenlake/index.js';
import { sokoban } from './sokoban/index.js';

// One line per environment.
registerEnv(sokoban);
registerEnv(frozenlake);
registerEnv(bandit);

export const BUILTIN_ENV_NAMES = [sokoban.name, frozenlake.name, bandit.name] as const;
export type BuiltinEnvName = (typeof BUILTIN_ENV_NAMES)[number];
