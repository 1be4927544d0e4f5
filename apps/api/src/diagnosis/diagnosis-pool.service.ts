import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Piscina } from 'piscina';
import type { BatchDiagnoser, BatchDiagnosis, IncrementalChecker, StoredRow } from '@starpo/db';
import { storedBatchParts, type DiagnosisTally } from '@starpo/envs';
import { threadScript } from '../thread-script.js';

/**
 * The reasoning checker on worker threads: checking an ingested step batch takes tens of
 * milliseconds of CPU, which on the event loop would hold every other request for that long. Off
 * it, a request's next batch is checked while the previous one is written.
 */
@Injectable()
export class DiagnosisPool implements OnModuleDestroy {
  private readonly pool = new Piscina<{ rows: StoredRow[]; prefix?: string }, unknown>({
    filename: pathToFileURL(threadScript(import.meta.url, './diagnose-thread.js')).href,
    // a request's step batches are checked side by side, a thread per core: meanwhile the event loop
    // mostly waits on them and on Postgres (docs/results/2026-12-03-ten-times-data.md, §2)
    maxThreads: Math.min(4, os.availableParallelism()),
    minThreads: 1,
    idleTimeout: 60_000,
  });

  readonly diagnose: BatchDiagnoser = (rows, prefix) => this.pool.run({ rows, prefix }) as Promise<BatchDiagnosis>;

  /** For a batch with a stored tally: the new rows are checked on a thread, their template marks settled on the caller's. */
  readonly incremental: IncrementalChecker<DiagnosisTally> = {
    ...storedBatchParts,
    turns: (rows) => this.pool.run({ rows }, { name: 'turns' }) as ReturnType<IncrementalChecker<DiagnosisTally>['turns']>,
  };

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }
}
