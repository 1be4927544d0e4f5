import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import { Rng } from '@starpo/envs';
import type { BackendName } from '../backend.js';
import type { Qwen2Model } from '../model/qwen2.js';
import { PolicyResponder, type SamplingSettings } from '../rollout/responder.js';
import { rollout, type RolloutRequest } from '../rollout/rollout.js';
import type { Trajectory } from '../rollout/types.js';
import { throwIfStopped } from '../util/stop.js';
import type { TextTokenizer } from '../tokenizer/types.js';
import { indexed, placeRows } from '../train/batch.js';
import { addGradient } from '../train/optimizer.js';
import { zeroPartials, type ActorLossSettings, type ActorShare, type TrainRow } from '../train/actor-rows.js';
import { shareByCost, splitEvenly } from './shares.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './protocol.js';

/** The worker script: built JavaScript beside this module, or the build output when running from the TypeScript sources (tests). */
function workerScript(): string {
  const here = fileURLToPath(new URL('./worker.js', import.meta.url));
  if (existsSync(here)) return here;
  const built = here.replace(/[\\/]src[\\/]parallel[\\/]worker\.js$/, '/dist/parallel/worker.js');
  if (!existsSync(built)) throw new Error(`compute worker script not found (${built}); build @starpo/trainer first`);
  return built;
}

/**
 * Worker threads that each hold a copy of the policy, for the CPU backends (wasm, cpu) that use one
 * core per thread: rollouts, scoring and actor gradients are shared between the main thread and
 * the workers. Weights are sent before each use, so the copies never lag the optimizer.
 */
export class ComputePool {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly workers: Worker[],
    private readonly stopCount: Int32Array,
  ) {
    for (const w of workers) {
      w.on('message', (m: WorkerReply) => {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.ok) p.resolve(m.result);
        else p.reject(Object.assign(new Error(`compute worker: ${m.error}`), m.stack ? { stack: `compute worker: ${m.stack}` } : {}));
      });
      w.on('error', (e) => this.failAll(e));
      w.on('exit', (code) => code !== 0 && this.failAll(new Error(`compute worker exited with code ${code}`)));
    }
  }

  /** Start `size` workers (the main thread is one more participant) with copies of `model`. */
  static async start(size: number, model: Qwen2Model, tokenizer: TextTokenizer, backend: BackendName): Promise<ComputePool> {
    const tensors = await model.exportTensors();
    const t = tokenizer.files();
    const stop = new SharedArrayBuffer(4);
    const init: WorkerInit = {
      backend,
      stop,
      config: model.config,
      tokenizer: t.tokenizer,
      tokenizerConfig: t.tokenizerConfig,
      weights: [...tensors].map(([name, v]) => ({ name, shape: v.shape, data: v.data })),
    };
    const workers = Array.from({ length: size }, () => new Worker(workerScript(), { workerData: init }));
    const pool = new ComputePool(workers, new Int32Array(stop));
    await Promise.all(workers.map((_, k) => pool.call(k, { kind: 'ping' })));
    return pool;
  }

  /** Number of worker threads (not counting the main thread). */
  get size(): number {
    return this.workers.length;
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  private call<T>(k: number, req: WorkerRequest): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.workers[k]!.postMessage({ ...req, id });
    });
  }

  /** Send the current weights to every worker (queued before any request that follows). */
  private syncWeights(model: Qwen2Model): void {
    const data = model.trainableVariables().map((v) => v.dataSync() as Float32Array);
    // a failure here also fails the request queued behind it, which its caller awaits
    this.workers.forEach((_, k) => void this.call(k, { kind: 'weights', data }).catch(() => {}));
  }

  /**
   * Start the workers on their shares of an actor step (shares[k] goes to worker k); `into`
   * waits for them, adds their gradients to `grads` by variable name and returns each share's
   * answer in order (null for a worker that `signal` stopped between micro-batches; its gradients are dropped).
   */
  actorGradients(
    policy: Qwen2Model,
    shares: TrainRow[][],
    settings: ActorLossSettings,
    padId: number,
    maxTokens: number,
    microBatchSize: number,
    signal?: AbortSignal,
  ): { into: (grads: Map<string, tf.Tensor>) => Promise<(ActorShare | null)[]> } {
    this.syncWeights(policy);
    const stopCount = Atomics.load(this.stopCount, 0);
    const onAbort = () => Atomics.add(this.stopCount, 0, 1);
    signal?.addEventListener('abort', onAbort, { once: true });
    const jobs = shares.map((rows, k) =>
      rows.length
        ? this.call<{ grads: Float32Array[]; share: ActorShare | null }>(k, {
            kind: 'grads',
            rows: rows.map((r) => ({
              ids: r.ids,
              mask: r.mask,
              oldLogProbs: r.oldLogProbs,
              advantages: r.advantages,
              refLogProbs: r.refLogProbs,
              fullTokens: r.fullTokens,
            })),
            settings,
            padId,
            maxTokens,
            microBatchSize,
            stopCount,
          })
        : null,
    );
    return {
      into: async (grads) => {
        const vars = policy.trainableVariables();
        const answers: (ActorShare | null)[] = [];
        try {
          for (const job of jobs) {
            if (!job) {
              answers.push({ partials: zeroPartials(), logProbs: [], entropy: [] });
              continue;
            }
            const r = await job;
            if (r.share) vars.forEach((v, i) => addGradient(grads, v.name, tf.tensor(r.grads[i]!, v.shape)));
            answers.push(r.share);
          }
        } finally {
          signal?.removeEventListener('abort', onAbort);
        }
        return answers;
      },
    };
  }

  /**
   * `rollout` with the groups split between the main thread and the workers. Each worker samples
   * with its own generator seeded from `rng`; group numbers are those of the whole request.
   * `signal` stops every participant between generated tokens (StopRequested from the main thread's share).
   */
  async rollout(
    model: Qwen2Model,
    tokenizer: TextTokenizer,
    req: RolloutRequest,
    sampling: SamplingSettings,
    rng: Rng,
    onTurn?: (turn: number, active: number) => void,
    signal?: AbortSignal,
  ): Promise<Trajectory[]> {
    throwIfStopped(signal);
    const parts = splitEvenly(req.seeds, this.size + 1);
    const stopCount = Atomics.load(this.stopCount, 0);
    const onAbort = () => Atomics.add(this.stopCount, 0, 1);
    signal?.addEventListener('abort', onAbort, { once: true });
    const seeds = parts.slice(1).map(() => rng.int(0, 2 ** 31 - 1));
    this.syncWeights(model);
    const remote = parts
      .slice(1)
      .map((p, k) =>
        p.length
          ? this.call<Trajectory[]>(k, { kind: 'rollout', req: { ...req, seeds: p }, sampling, rngSeed: seeds[k]!, stopCount })
          : null,
      );
    // handled from the start: a worker's stop may reject its job while the main thread's share still runs
    for (const job of remote) job?.catch(() => {});
    // progress: the workers' shares are assumed to keep pace with the main thread's
    const scale = req.seeds.length / Math.max(1, parts[0]!.length);
    try {
      const local = await rollout(
        { ...req, seeds: parts[0]! },
        new PolicyResponder(model, tokenizer, { ...sampling, signal }),
        tokenizer,
        rng,
        (turn, active) => onTurn?.(turn, Math.round(active * scale)),
      );
      const out = [...local];
      let offset = parts[0]!.length;
      for (const [k, job] of remote.entries()) {
        for (const t of job ? await job : []) out.push({ ...t, group: t.group + offset });
        offset += parts[k + 1]!.length;
      }
      return out;
    } catch (e) {
      // a stop ends every share: wait for the workers to stop too, so the next request finds them free
      await Promise.allSettled(remote);
      throwIfStopped(signal);
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Per-position log-probs and entropies, the samples shared out by cost. */
  async score(
    model: Qwen2Model,
    samples: { ids: number[]; mask?: number[] }[],
    padId: number,
    maxTokens: number,
    temperature: number,
    local: (s: { ids: number[]; mask?: number[] }[]) => Promise<{ logProbs: number[][]; entropy: number[][] }>,
  ): Promise<{ logProbs: number[][]; entropy: number[][] }> {
    const shares = shareByCost(indexed(samples), this.size + 1);
    this.syncWeights(model);
    const remote = shares.slice(1).map((sh, k) =>
      sh.length
        ? this.call<{ logProbs: number[][]; entropy: number[][] }>(k, {
            kind: 'score',
            ids: sh.map((s) => s.ids),
            masks: sh.map((s) => s.mask ?? null),
            padId,
            maxTokens,
            temperature,
          })
        : null,
    );
    const logProbs: number[][] = new Array(samples.length);
    const entropy: number[][] = new Array(samples.length);
    const place = (share: { at: number }[], r: { logProbs: number[][]; entropy: number[][] }) => {
      placeRows(logProbs, share, r.logProbs);
      placeRows(entropy, share, r.entropy);
    };
    place(shares[0]!, await local(shares[0]!));
    for (const [k, job] of remote.entries()) if (job) place(shares[k + 1]!, await job);
    return { logProbs, entropy };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
