import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { EVENTS_CHANNEL, type AccessNotice, type RunNotice } from '@starpo/contracts';
import pg from 'pg';
import { SETTINGS, type ApiSettings } from '../tokens.js';

type Handler = (notice: RunNotice | AccessNotice) => void;

/**
 * One dedicated connection per API instance LISTENing on the events channel; reconnects with
 * backoff when the database goes away (clients catch up from their last step when it returns).
 */
@Injectable()
export class PgListener implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('events');
  private client: pg.Client | null = null;
  private handlers: Handler[] = [];
  private closed = false;
  private retryMs = 500;

  constructor(@Inject(SETTINGS) private readonly settings: ApiSettings) {}

  onNotice(h: Handler): void {
    this.handlers.push(h);
  }

  async onModuleInit(): Promise<void> {
    await this.connect().catch((e: Error) => this.retry(e));
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.settings.databaseUrl });
    client.on('error', (e) => this.retry(e));
    client.on('notification', (m) => {
      if (m.channel !== EVENTS_CHANNEL || !m.payload) return;
      let notice: RunNotice | AccessNotice;
      try {
        notice = JSON.parse(m.payload) as RunNotice | AccessNotice;
      } catch {
        return;
      }
      for (const h of this.handlers) h(notice);
    });
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    this.client = client;
    this.retryMs = 500;
  }

  private retry(e: Error): void {
    if (this.closed) return;
    const old = this.client;
    this.client = null;
    old?.end().catch(() => {});
    this.logger.warn(`LISTEN connection lost (${e.message}); retrying in ${this.retryMs} ms`);
    setTimeout(() => void this.connect().catch((err: Error) => this.retry(err)), this.retryMs).unref();
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
  }
}
