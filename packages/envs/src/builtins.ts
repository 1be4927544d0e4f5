import { registerEnv } from './registry.js';
import { bandit } from './bandit/index.js';
import { frozenlake } from './frozenlake/index.js';
import { sokoban } from './sokoban/index.js';
import { countdown } from './countdown/index.js';

// One line per environment. Registering is this module's side effect: package.json's `sideEffects`
// names it (and zod.js), so a bundler keeps it while dropping modules a page does not use.
registerEnv(sokoban);
registerEnv(frozenlake);
registerEnv(bandit);
registerEnv(countdown);

// The names as literals for types, in registration order (test/registry.test.ts compares them with the registry).
export const BUILTIN_ENV_NAMES = ['sokoban', 'frozenlake', 'bandit', 'countdown'] as const;
export type BuiltinEnvName = (typeof BUILTIN_ENV_NAMES)[number];
