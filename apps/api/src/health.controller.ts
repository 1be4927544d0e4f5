import { Controller, HttpException, Inject, Logger } from '@nestjs/common';
import { Route } from './route.js';
import { ROUTES } from '@starpo/contracts';
import { migrationStatus } from '@starpo/db';
import type pg from 'pg';
import { PROBE } from './di-tokens.js';

@Controller()
export class HealthController {
  private readonly logger = new Logger('health');

  /** Asks through a pool of its own: while requests hold every connection of the main pool, the database's state is still known. */
  constructor(@Inject(PROBE) private readonly probe: pg.Pool) {}

  /** 200 when the database answers and every migration is applied; 503 otherwise. */
  @Route(ROUTES.health)
  async health(): Promise<{ status: 'ok'; database: 'up'; migrations: { applied: number; pending: string[] } }> {
    try {
      await this.probe.query('SELECT 1');
    } catch (e) {
      // the cause (host, port, driver message) goes to the log, never to an unauthenticated caller
      this.logger.warn(`database unreachable: ${(e as Error).message}`);
      throw new HttpException({ error: 'database_unavailable', message: 'the database is unreachable', details: [] }, 503);
    }
    const status = await migrationStatus(async (sql) => (await this.probe.query<{ migration_name: string }>(sql)).rows);
    if (status.pending.length) {
      throw new HttpException(
        { error: 'migrations_pending', message: `pending migrations: ${status.pending.join(', ')}`, details: status },
        503,
      );
    }
    return { status: 'ok', database: 'up', migrations: { applied: status.applied.length, pending: [] } };
  }
}
