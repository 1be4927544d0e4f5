import { defineSettings, describedDefault, envVar } from '@starpo/contracts';

/**
 * The variables the trainer reads, in the `starpo` CLI and in every worker (and its compute threads,
 * which inherit the environment). Read once, on first use; a worker checks them at its start-up.
 */
export const trainerVars = {
  STARPO_BACKEND: describedDefault(
    envVar.oneOf(['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'], {
      description: 'force a tensor backend (auto: the first that works of tensorflow, webgpu, wasm, cpu)',
    }),
    "the run's or CLI's choice (auto)",
  ),
  STARPO_MATMUL: envVar.oneOf(['blas', 'tfjs'], {
    default: 'blas',
    description: 'on the wasm and cpu backends, matMul and attention on OpenBLAS (when its addon is built) or on tfjs',
  }),
  OPENBLAS_NUM_THREADS: envVar.int({
    default: 1,
    min: 1,
    description: 'OpenBLAS threads per compute thread (the compute pool already gives each core its own thread)',
  }),
  STARPO_WASM_HEAP_MB: envVar.int({
    default: 512,
    min: 0,
    description:
      "the wasm backend's heap in MiB, grown once at start-up (memory is taken only as tensors use it); growing it step by step costs a full garbage collection each time",
  }),
  STARPO_BASES_DIR: describedDefault(
    envVar.text({ description: 'where the shipped bases (starpo-base/…) live' }),
    'models/bases/ of the repository',
  ),
  LD_LIBRARY_PATH: envVar.text({ description: 'also searched for libvulkan.so.1 before WebGPU is tried (Linux)' }),
};

const trainerEnv = defineSettings(trainerVars);
export type TrainerSettings = ReturnType<typeof trainerEnv.parse>;

/** The trainer's settings from `env`; throws a SettingsError naming each bad variable. */
export function loadTrainerSettings(env: Record<string, string | undefined> = process.env): TrainerSettings {
  return trainerEnv.parse(env);
}

let current: TrainerSettings | null = null;

/** This process's settings, read from process.env on first use. */
export function trainerSettings(): TrainerSettings {
  return (current ??= loadTrainerSettings());
}

/** The `starpo` command line's variables: the trainer's and its own. */
export const cliEnv = defineSettings({
  ...trainerVars,
  STARPO_DEBUG: envVar.flag({ description: 'print the stack of an error' }),
});

/** The command line's settings from process.env, with the trainer's read at the same time (so a bad one stops it at start). */
export function cliSettings(): ReturnType<typeof cliEnv.parse> {
  trainerSettings();
  return cliEnv.parse(process.env);
}
