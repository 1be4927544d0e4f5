import { Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { DiagnosisPool } from './diagnosis/diagnosis-pool.service.js';
import { EnvPreviewService } from './env-preview/preview.service.js';
import { createDb, createProbe, RunQueue, type Db } from '@starpo/db';
import type pg from 'pg';
import { AuthController, TeamController, TeamsController, TokensController } from './auth/auth.controller.js';
import { AuthGuard } from './auth/auth.guard.js';
import { AuthService } from './auth/auth.service.js';
import { BaseModelsController } from './base-models.controller.js';
import { CheckpointsController } from './checkpoints.controller.js';
import { CheckpointArchiveController } from './checkpoint-archive.controller.js';
import { DocsController } from './docs.controller.js';
import { DurationEstimateController } from './duration-estimate.controller.js';
import { EnvsController } from './envs.controller.js';
import { EnvRegistrationsService } from './env-registrations.service.js';
import { EventsGateway } from './events/events.gateway.js';
import { PgListener } from './events/pg-listener.js';
import { HealthController } from './health.controller.js';
import { IngestService } from './ingest.service.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';
import { RunsController } from './runs.controller.js';
import { RunsService } from './runs.service.js';
import { SharedReads, TeamReadsInFlight } from './shared-reads.js';
import { SweeperService } from './sweeper.service.js';
import { RequestGuard } from './security/request.guard.js';
import { DB, PROBE, QUEUE, SETTINGS, type ApiSettings } from './di-tokens.js';
import { TrajectoriesController } from './trajectories.controller.js';
import { TrajectoriesService } from './trajectories.service.js';
import { VerdictsController } from './verdicts/verdicts.controller.js';
import { VerdictsService } from './verdicts/verdicts.service.js';
import { WorkersController } from './workers.controller.js';

class DbLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(QUEUE) private readonly queue: RunQueue,
    @Inject(PROBE) private readonly probe: pg.Pool,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.queue.stop();
    await this.db.$disconnect();
    await this.probe.end();
  }
}

@Module({})
export class AppModule {
  static forRoot(settings: ApiSettings): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ThrottlerModule.forRoot([
          { name: 'default', ttl: 60_000, limit: settings.authRateLimit },
          { name: 'ingest', ttl: 60_000, limit: settings.ingestRateLimit },
        ]),
      ],
      controllers: [
        HealthController,
        EnvsController,
        AuthController,
        TeamController,
        TeamsController,
        TokensController,
        RunsController,
        MetricsController,
        TrajectoriesController,
        CheckpointsController,
        WorkersController,
        DurationEstimateController,
        BaseModelsController,
        CheckpointArchiveController,
        DocsController,
        VerdictsController,
      ],
      providers: [
        { provide: SETTINGS, useValue: settings },
        // a frozen or unreachable database gives 503 within a few seconds, never a hanging request
        {
          provide: DB,
          useFactory: () =>
            createDb(settings.databaseUrl, {
              max: settings.dbPoolSize,
              queryTimeoutMs: settings.dbQueryTimeoutMs,
              connectTimeoutMs: settings.dbConnectTimeoutMs,
            }),
        },
        {
          provide: PROBE,
          useFactory: () =>
            createProbe(settings.databaseUrl, { queryTimeoutMs: settings.dbQueryTimeoutMs, connectTimeoutMs: settings.dbConnectTimeoutMs }),
        },
        { provide: QUEUE, useFactory: () => new RunQueue(settings.databaseUrl).start() },
        DbLifecycle,
        AuthService,
        { provide: APP_GUARD, useClass: RequestGuard },
        { provide: APP_GUARD, useClass: AuthGuard },
        TeamReadsInFlight,
        { provide: APP_INTERCEPTOR, useClass: SharedReads },
        RunsService,
        MetricsService,
        TrajectoriesService,
        VerdictsService,
        IngestService,
        DiagnosisPool,
        PgListener,
        EventsGateway,
        SweeperService,
        EnvPreviewService,
        EnvRegistrationsService,
      ],
    };
  }
}
