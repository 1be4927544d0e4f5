import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Piscina } from 'piscina';
import type { BatchDiagnoser, BatchDiagnosis, StoredRow } from '@starpo/db';
import { threadScript } from '../thread-script.js';

/**
 * The reasoning checker on worker threads: checking an ingested step batch takes tens of
 * milliseconds of CPU, which on the event loop would hold every other request for that long. Off
 * it, a request's next batch is checked while the previous one is written.
 */
@Injectable()
export class DiagnosisPool implements OnModuleDestroy {
  private readonly pool = new Piscina<{ rows: StoredRow[]; prefix: string }, BatchDiagnosis>({
    filename: pathToFileURL(threadScript(import.meta.url, './diagnose-thread.js')).href,
    // a request's step batches are checked side by side, a thread per core: meanwhile the event loop
    // mostly waits on them and on Postgres (docs/results/2026-12-03-ten-times-data.md, §2)
    maxThreads: Math.min(4, os.availableParallelism()),
    minThreads: 1,
    idleTimeout: 60_000,
  });

  readonly diagnose: BatchDiagnoser = (rows, prefix) => this.pool.run({ rows, prefix });

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }
}
