import { Public } from './auth/actor.js';
import { Controller, Get, HttpException, Inject } from '@nestjs/common';
import { migrationStatus, type Db } from '@starpo/db';
import { DB } from './tokens.js';

@Public()
@Controller()
export class HealthController {
  constructor(@Inject(DB) private readonly db: Db) {}

  /** 200 when the database answers and every migration is applied; 503 otherwise. */
  @Get('health')
  async health(): Promise<{ status: 'ok'; database: 'up'; migrations: { applied: number; pending: string[] } }> {
    try {
      await this.db.$queryRawUnsafe('SELECT 1');
    } catch (e) {
      throw new HttpException({ error: 'database_unavailable', message: `database unreachable: ${(e as Error).message}` }, 503);
    }
    const status = await migrationStatus((sql) => this.db.$queryRawUnsafe(sql));
    if (status.pending.length) {
      throw new HttpException(
        { error: 'migrations_pending', message: `pending migrations: ${status.pending.join(', ')}`, details: status },
        503,
      );
    }
    return { status: 'ok', database: 'up', migrations: { applied: status.applied.length, pending: [] } };
  }
}
