import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { startSweeper, type Db, type RunQueue } from '@starpo/db';
import { DB, QUEUE, SETTINGS, type ApiSettings } from './di-tokens.js';

/**
 * The API sweeps too, so a dead worker's run is requeued (or cancelled, when a cancel was asked for)
 * even when every worker is busy or none is left: WORKER_STALE_MS and WORKER_SWEEP_MS as for workers.
 */
@Injectable()
export class SweeperService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('sweeper');
  private sweeper: ReturnType<typeof startSweeper> | null = null;

  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(QUEUE) private readonly queue: RunQueue,
    @Inject(SETTINGS) private readonly settings: ApiSettings,
  ) {}

  onModuleInit(): void {
    this.sweeper = startSweeper(this.db, {
      staleMs: this.settings.workerStaleMs,
      intervalMs: this.settings.workerSweepMs,
      dispatch: (id, gpu) => this.queue.dispatch(id, gpu),
      onSwept: (r) => {
        if (r.requeued.length) this.logger.log(`requeued runs without a heartbeat: ${r.requeued.join(', ')}`);
        if (r.cancelled.length) this.logger.log(`cancelled runs without a heartbeat whose cancel was requested: ${r.cancelled.join(', ')}`);
      },
    });
  }

  onApplicationShutdown(): void {
    this.sweeper?.stop();
  }
}
