import { parentPort } from 'node:worker_threads';
import { GenerationBudgetExceeded, getEnvDefinition } from '@starpo/envs';
import type { EnvPreview, PreviewJob, PreviewReply } from './protocol.js';

/** Generates environment previews off the API's event loop, one job at a time, in order. */
function render(job: PreviewJob): EnvPreview {
  const env = getEnvDefinition(job.name).create(job.config);
  const observation = env.reset(job.seed);
  return { observation, instructions: env.instructions(), actions: env.actions, snapshot: env.snapshot() };
}

parentPort!.on('message', (job: PreviewJob) => {
  let reply: PreviewReply;
  try {
    reply = { ok: true, preview: render(job) };
  } catch (e) {
    const setting = e instanceof GenerationBudgetExceeded ? e.setting : null;
    reply = { ok: false, message: e instanceof Error ? e.message : String(e), setting };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true });
