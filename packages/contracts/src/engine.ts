import { z } from './zod.js';

/**
 * The tensor engine a worker trains on. On the CPU backends (wasm, cpu) matMul, attention and a few
 * fused kernels run on OpenBLAS through an optional addon built against Debian's libopenblas-dev;
 * without it they stay on tfjs's own kernels, about 4× slower a quick-cpu step or more
 * (`bench:step`, docs/results/engine.md). GPU backends and libtensorflow run their own kernels.
 */
export const ENGINES = ['openblas', 'tfjs', 'native', 'unknown'] as const;
export const engineSchema = z.enum(ENGINES);
export type Engine = (typeof ENGINES)[number];

/** CPU training on tfjs's own kernels: the addon is not built (or STARPO_MATMUL=tfjs). */
export const isSlowEngine = (e: Engine | undefined): boolean => e === 'tfjs';

export const ENGINE_LABELS: Record<Engine, string> = {
  openblas: 'OpenBLAS kernels',
  tfjs: 'tfjs kernels',
  native: "the backend's own kernels",
  unknown: 'not reported',
};

/** What puts a CPU worker on the fast engine: the addon needs cblas.h, and npm start rebuilds it when missing. */
export const FAST_ENGINE_FIX = 'sudo apt-get install libopenblas-dev, then npm start again';
