import { parentPort, workerData } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import { Rng } from '@starpo/envs';
import { initBackend } from '../backend.js';
import { Qwen2Model } from '../model/qwen2.js';
import { PolicyResponder } from '../rollout/responder.js';
import { rollout } from '../rollout/rollout.js';
import { tokenizerFromFiles } from '../tokenizer/load.js';
import { scoreSamples } from '../train/batch.js';
import type { TrainRow } from '../train/actor-rows.js';
import { accumulateActorGradients } from '../train/update.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './protocol.js';

/** A compute worker of a ComputePool: one copy of the policy, requests served one at a time in order. */
const init = workerData as WorkerInit;
await initBackend(init.backend);
const model = Qwen2Model.fromTensors(
  init.config,
  new Map(init.weights.map((w) => [w.name, { shape: w.shape, data: w.data, dtype: 'F32' as const }])),
);
const tokenizer = tokenizerFromFiles(init.tokenizer, init.tokenizerConfig);
// The pool's stop requests, read between generated tokens and micro-batches as an AbortSignal would be.
const stops = new Int32Array(init.stop);
const stopSignal = (startCount: number) =>
  ({
    get aborted() {
      return Atomics.load(stops, 0) !== startCount;
    },
    reason: 'stopped',
  }) as unknown as AbortSignal;

async function handle(req: WorkerRequest): Promise<{ result: unknown; transfer?: ArrayBuffer[] }> {
  switch (req.kind) {
    case 'ping':
      return { result: true };
    case 'weights':
      model.trainableVariables().forEach((v, i) => tf.tidy(() => v.assign(tf.tensor(req.data[i]!, v.shape))));
      return { result: true };
    case 'grads': {
      const grads = new Map<string, tf.Tensor>();
      const rows = req.rows.map((r) => r as unknown as TrainRow);
      const stop = stopSignal(req.stopCount);
      const share = await accumulateActorGradients(model, rows, req.settings, req.padId, req.maxTokens, req.microBatchSize, grads, stop);
      if (!share) {
        tf.dispose([...grads.values()]);
        return { result: { grads: [], share: null } };
      }
      const out = model.trainableVariables().map((v) => {
        const g = grads.get(v.name);
        const data = g ? (g.dataSync() as Float32Array).slice() : new Float32Array(v.size);
        g?.dispose();
        return data;
      });
      return { result: { grads: out, share }, transfer: out.map((d) => d.buffer as ArrayBuffer) };
    }
    case 'rollout': {
      const responder = new PolicyResponder(model, tokenizer, { ...req.sampling, signal: stopSignal(req.stopCount) });
      return { result: await rollout(req.req, responder, tokenizer, new Rng(req.rngSeed)) };
    }
    case 'score':
      return {
        result: await scoreSamples(
          model,
          req.ids.map((ids, i) => ({ ids, mask: req.masks[i] ?? undefined })),
          req.padId,
          req.maxTokens,
          req.temperature,
        ),
      };
  }
}

let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (msg: WorkerRequest & { id: number }) => {
  queue = queue.then(async () => {
    let reply: WorkerReply;
    let transfer: ArrayBuffer[] = [];
    try {
      const r = await handle(msg);
      reply = { id: msg.id, ok: true, result: r.result };
      transfer = r.transfer ?? [];
    } catch (e) {
      // message and stack apart: the message may reach a run's log, the stack (server paths) may not
      reply = { id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined };
    }
    try {
      parentPort!.postMessage(reply, transfer);
    } catch (e) {
      // a result that cannot cross the thread boundary must still answer its request
      parentPort!.postMessage({ id: msg.id, ok: false, error: `unsendable result: ${e instanceof Error ? e.message : String(e)}` });
    }
  });
});
