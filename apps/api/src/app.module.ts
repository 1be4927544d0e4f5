import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { Inject } from '@nestjs/common';
import { createDb, type Db } from '@starpo/db';
import { EnvsController } from './envs.controller.js';
import { HealthController } from './health.controller.js';
import { RunsController } from './runs.controller.js';
import { RunsService } from './runs.service.js';
import { DB, SETTINGS, type ApiSettings } from './tokens.js';

class DbLifecycle implements OnApplicationShutdown {
  constructor(@Inject(DB) private readonly db: Db) {}
  async onApplicationShutdown(): Promise<void> {
    await this.db.$disconnect();
  }
}

@Module({})
export class AppModule {
  static forRoot(settings: ApiSettings): DynamicModule {
    return {
      module: AppModule,
      controllers: [HealthController, EnvsController, RunsController],
      providers: [
        { provide: SETTINGS, useValue: settings },
        { provide: DB, useFactory: () => createDb(settings.databaseUrl) },
        DbLifecycle,
        RunsService,
      ],
    };
  }
}
