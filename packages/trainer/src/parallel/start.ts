import { availableParallelism } from 'node:os';
import { backendInfo } from '../backend.js';
import type { Qwen2Model } from '../model/qwen2.js';
import { ComputePool } from './pool.js';
import type { TextTokenizer } from '../tokenizer/types.js';

export const WORKERS_HELP = 'threads sharing rollouts and gradients on the CPU backends: a number or auto (one per core)';

/**
 * The compute pool for `--workers` (or the worker service's STARPO_COMPUTE_THREADS): none on a GPU
 * backend (one device, already parallel) or for one thread; otherwise `n − 1` worker threads beside
 * the main one.
 */
export async function startPool(
  workers: string | undefined,
  model: Qwen2Model,
  tokenizer: TextTokenizer,
  log: (msg: string) => void,
): Promise<ComputePool | null> {
  const backend = backendInfo();
  const n = workers === undefined || workers === 'auto' ? availableParallelism() : Number(workers);
  if (!Number.isInteger(n) || n < 1) throw new Error(`compute threads must be a positive integer or auto, not ${JSON.stringify(workers)}`);
  if (n === 1 || !backend || backend.gpu || backend.name === 'tensorflow') return null;
  const pool = await ComputePool.start(n - 1, model, tokenizer, backend.name);
  log(`compute threads: ${n} (${backend.name})`);
  return pool;
}
