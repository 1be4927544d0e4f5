import { BUILTIN_ENV_NAMES } from '@starpo/envs';

/** Value at a dotted path of a free-form config, or undefined. */
function at(config: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), config);
}

function firstString(config: unknown, paths: string[]): string | undefined {
  for (const p of paths) {
    const v = at(config, p);
    if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 100);
  }
  return undefined;
}

/** RAGEN's env tags (SimpleSokoban, CoordSokoban, LargerSokoban, FrozenLake, BanditTest…) name a built-in environment. */
function builtinName(tag: string): string {
  const key = tag.toLowerCase().replace(/[^a-z]/g, '');
  return BUILTIN_ENV_NAMES.find((n) => key.includes(n)) ?? tag;
}

/**
 * The run columns of an external run, read from the config its trainer sent (this project's
 * keys, or verl/RAGEN's): nothing is filled in from defaults, so no progress bar appears unless
 * a planned step count was sent, and the algorithm reads "external" unless one was named.
 */
export function externalRunColumns(config: Record<string, unknown>) {
  const steps = [at(config, 'training.steps'), at(config, 'trainer.total_training_steps')].find(
    (v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 1e9,
  );
  return {
    config: config as object,
    environment: builtinName(firstString(config, ['env.name', 'env']) ?? 'unknown'),
    algorithm: firstString(config, ['algorithm.advEstimator', 'algorithm.adv_estimator', 'algorithm.name', 'algorithm']) ?? 'external',
    totalSteps: steps ?? 0,
    needsGpu: false,
  };
}
