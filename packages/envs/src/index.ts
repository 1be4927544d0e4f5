import './builtins.js';

export * from './types.js';
export * from './rng.js';
export * from './parse.js';
export * from './registry.js';
export * from './observation.js';
export * from './sokoban/observation.js';
export * from './frozenlake/observation.js';
export * from './shaping.js';
export { BUILTIN_ENV_NAMES, type BuiltinEnvName } from './builtins.js';
export * from './sokoban/env.js';
export { generateRoom, GenerationFailed } from './sokoban/generate.js';
export * from './sokoban/solver.js';
export * from './frozenlake/env.js';
export * from './frozenlake/solver.js';
export * from './bandit/env.js';
export * from './diagnostics/index.js';
export * from './stored-diagnosis.js';
