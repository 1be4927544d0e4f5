import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { EVENTS_CHANNEL, type AccessNotice, type RunNotice } from '@starpo/contracts';
import pg from 'pg';
import { SETTINGS, type ApiSettings } from '../di-tokens.js';

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
  private reconnectHandlers: (() => void)[] = [];
  private lost = false;
  private closed = false;
  private retryMs = 500;

  constructor(@Inject(SETTINGS) private readonly settings: ApiSettings) {}

  onNotice(h: Handler): void {
    this.handlers.push(h);
  }

  /** Called after the connection came back: notices sent while it was away are gone. */
  onReconnect(h: () => void): void {
    this.reconnectHandlers.push(h);
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
    // A killed server may end the connection without an error. Only the live connection's loss counts:
    // a failed attempt is retried by its caller, and a replaced client's events are stale.
    const lost = (e: Error) => this.client === client && this.retry(e);
    client.on('error', lost);
    client.on('end', () => lost(new Error('connection ended')));
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
    if (this.lost) {
      this.lost = false;
      for (const h of this.reconnectHandlers) h();
    }
  }

  private retry(e: Error): void {
    if (this.closed) return;
    const old = this.client;
    this.client = null;
    this.lost = true;
    old?.end().catch(() => {});
    this.logger.warn(`LISTEN connection lost (${e.message}); retrying in ${this.retryMs} ms`);
    setTimeout(() => void this.connect().catch((err: Error) => this.retry(err)), this.retryMs).unref();
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
  }
}
