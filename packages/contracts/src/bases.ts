import { BUILTIN_ENV_NAMES } from '@starpo/envs';

/**
 * The warm-start bases shipped in the repository (models/bases/<folder>, built by `npm run bases`).
 * A preset run on an environment listed here starts from its base unless `model.base` says otherwise:
 * from random weights starpo-tiny writes no well-formed reply, so a short RL run has no signal to learn from.
 */
export interface ShippedBase {
  name: string;
  /** Folder under models/bases/. */
  folder: string;
  env: string;
  /** Environment settings the base was pretrained with; a run that starts from it uses them unless it sets its own. */
  envConfig: Record<string, unknown>;
  description: string;
}

/** The sizes of starpo-tiny that train from random weights (`starpo-tiny/<size>`; the trainer holds their shapes). */
export const STARPO_TINY_SIZES = ['nano', 'tiny', 'small'] as const;
export type StarpoTinySize = (typeof STARPO_TINY_SIZES)[number];
const STARPO_TINY_BASES = STARPO_TINY_SIZES.map((size) => `starpo-tiny/${size}`);

/** Why `base` cannot be loaded as a random init, or null: a `starpo-tiny/` name must be one of its sizes (else the worker would fail). */
export function starpoTinyRefusal(base: string): string | null {
  if (!base.startsWith('starpo-tiny/') || STARPO_TINY_BASES.includes(base)) return null;
  return `"${base}" is not a starpo-tiny size: ${STARPO_TINY_BASES.slice(0, -1).join(', ')} or ${STARPO_TINY_BASES.at(-1)}`;
}

/**
 * What a warm-start pretrain (`starpo pretrain`, `POST /api/base-models`) uses unless told otherwise: the
 * clean teacher (random moves are an opt-in exploration setting) and enough fresh dialogues for the
 * model to approach it. The measurements behind these numbers: docs/results/bases.md.
 */
export const PRETRAIN_DEFAULTS = {
  size: 'tiny' as StarpoTinySize,
  dialogues: 8000,
  epochs: 1,
  // small steps: the same tokens, and attention learns to copy sooner
  batchSize: 4,
  microBatchTokens: 3072,
  lr: 2e-3,
  randomActionShare: 0,
  valSize: 64,
  seed: 0,
};

/** What a warm-start pretrain may train on: one built-in environment, or all of them (`mixed`). */
export const PRETRAIN_ENVS = [...BUILTIN_ENV_NAMES, 'mixed'] as const;
export type PretrainEnv = (typeof PRETRAIN_ENVS)[number];

export const SCRATCH_BASE = 'starpo-tiny/tiny';
export const SCRATCH_HINT =
  'From scratch: random weights. Expect every reply to break the format, a reward stuck at the format penalty and no learning in a short run.';

export const SHIPPED_BASES: readonly ShippedBase[] = [
  {
    name: 'starpo-base/sokoban-tiny',
    folder: 'sokoban-tiny',
    env: 'sokoban',
    envConfig: { observationFormat: 'grid_coord' },
    description:
      "starpo-tiny pretrained on the solver's Sokoban 6×6 dialogues, then on its own states labelled by the solver (positions listed above the grid)",
  },
  {
    name: 'starpo-base/frozenlake-tiny',
    folder: 'frozenlake-tiny',
    env: 'frozenlake',
    envConfig: { observationFormat: 'grid_coord' },
    description:
      'starpo-tiny pretrained on FrozenLake 4×4 dialogues of a value-iteration teacher, then on its own states labelled by it (positions listed above the grid)',
  },
];

export function shippedBase(name: string): ShippedBase | undefined {
  return SHIPPED_BASES.find((b) => b.name === name);
}

/** The base a preset run on `env` starts from when it names none: the shipped base for the environment, else from scratch. */
export function defaultBase(env: string): string {
  return SHIPPED_BASES.find((b) => b.env === env)?.name ?? SCRATCH_BASE;
}
