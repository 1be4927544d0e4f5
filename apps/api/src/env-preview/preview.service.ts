import { HttpException, HttpStatus, Inject, Injectable, UnprocessableEntityException, type OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { SETTINGS, type ApiSettings } from '../di-tokens.js';
import { threadScript } from '../thread-script.js';
import type { EnvPreview, PreviewJob, ThreadMessage } from './protocol.js';

interface Pending {
  job: PreviewJob;
  resolve(preview: EnvPreview): void;
  reject(error: unknown): void;
}

/** Previews waiting for the thread beyond this many are refused with 429 rather than queued without end. */
const MAX_WAITING = 8;

/**
 * Environment previews generated on one worker thread, so a costly room never holds the event
 * loop: a job past its time limit ends the thread (a fresh one takes the next job) and answers 422.
 * Previews are deterministic, so recent ones are answered from a cache.
 */
@Injectable()
export class EnvPreviewService implements OnModuleDestroy {
  private readonly timeoutMs: number;
  private readonly cache = new LRUCache<string, EnvPreview>({ max: 256 });
  private readonly waiting: Pending[] = [];
  private thread: Worker | null = null;
  /** Whether the thread has loaded its modules; its start does not count against a job's time limit. */
  private ready = false;
  private running: { pending: Pending; timer: NodeJS.Timeout } | null = null;

  constructor(@Inject(SETTINGS) settings: ApiSettings) {
    this.timeoutMs = settings.previewTimeoutMs;
  }

  render(job: PreviewJob): Promise<EnvPreview> {
    const key = JSON.stringify([job.name, job.seed, job.config]);
    const cached = this.cache.get(key);
    if (cached) return Promise.resolve(cached);
    if (this.waiting.length >= MAX_WAITING) {
      throw new HttpException(
        { error: 'too_many_requests', message: 'too many environment previews in progress; retry shortly', details: [] },
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    return new Promise<EnvPreview>((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      this.next();
    }).then((preview) => {
      this.cache.set(key, preview);
      return preview;
    });
  }

  onModuleDestroy(): void {
    this.waiting.length = 0;
    void this.thread?.terminate();
    this.thread = null;
  }

  private next(): void {
    if (this.running || this.waiting.length === 0) return;
    const thread = this.ensureThread();
    if (!this.ready) return; // its `ready` message calls next() again
    const pending = this.waiting.shift()!;
    const timer = setTimeout(() => {
      // the thread is busy in synchronous generation: ending it is the only way to stop it
      this.finish(new UnprocessableEntityException(overBudget(pending.job, `took longer than ${this.timeoutMs} ms`)));
      void thread.terminate();
      this.thread = null;
      this.next();
    }, this.timeoutMs);
    this.running = { pending, timer };
    thread.postMessage(pending.job);
  }

  private ensureThread(): Worker {
    if (this.thread) return this.thread;
    const thread = new Worker(threadScript(import.meta.url, './preview-thread.js'));
    this.ready = false;
    thread.on('message', (reply: ThreadMessage) => {
      if (thread !== this.thread) return; // a late answer of a thread ended at its time limit
      if ('ready' in reply) this.ready = true;
      else if (reply.ok) this.finish(null, reply.preview);
      else if (reply.setting)
        this.finish(new UnprocessableEntityException(overBudget(this.running!.pending.job, reply.message, reply.setting)));
      else this.finish(new Error(`preview of ${this.running?.pending.job.name} failed: ${reply.message}`));
      this.next();
    });
    thread.on('error', (e) => {
      if (thread !== this.thread) return;
      this.thread = null;
      if (this.running) {
        this.finish(e);
        this.next();
      } else {
        // the thread failed to start: refuse what waits rather than start it again and again
        for (const pending of this.waiting.splice(0)) pending.reject(e);
      }
    });
    thread.unref();
    this.thread = thread;
    return thread;
  }

  private finish(error: unknown, preview?: EnvPreview): void {
    const running = this.running;
    if (!running) return;
    this.running = null;
    clearTimeout(running.timer);
    if (error) running.pending.reject(error);
    else running.pending.resolve(preview!);
  }
}

/** The 422 body for a generation over its budget, naming the config value to lower. */
function overBudget(job: PreviewJob, why: string, setting = 'maxExploredStates'): Record<string, unknown> {
  const path = setting in job.config ? `config.${setting}` : 'config';
  return {
    error: 'generation_over_budget',
    message: `generating this ${job.name} environment ${why}; lower ${path} (or the size of the environment)`,
    details: [{ path, message: 'generation over budget: lower it' }],
  };
}
