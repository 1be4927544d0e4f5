import { ArgumentsHost, Catch, HttpException, HttpStatus, Logger, type ExceptionFilter } from '@nestjs/common';
import { ValidationError } from '@starpo/contracts';
import { isConnectionError, isPoolBusy } from '@starpo/db';
import type { Response } from 'express';
import type { DatabaseReachability } from './database-reachable.js';

/** The one error shape of the API: `{ error, message, details }` (details: the field errors, [] when none). */
export interface ErrorBody {
  error: string;
  message: string;
  details: unknown;
}

/** Seconds a client is asked to wait (Retry-After) when every database connection is busy. */
export const BUSY_RETRY_AFTER_S = 1;

const NAMES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  503: 'service_unavailable',
};

const BUSY = {
  status: 503,
  body: { error: 'server_busy', message: `the server is busy; retry in ${BUSY_RETRY_AFTER_S} s`, details: [] },
} as const satisfies { status: number; body: ErrorBody };

@Catch()
export class ErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('errors');

  /** `database`: asked whether the database answers when a query failed at the connection level; without it, such a failure is an outage. */
  constructor(private readonly database?: DatabaseReachability) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const described = this.describe(exception);
    if (described.body.error !== 'database_unavailable' || !this.database) return this.send(res, exception, described);
    // a query that timed out while the database answers others is load, not an outage (503 "unreachable" under 200 clients with Postgres healthy)
    void this.database.reachable().then((up) => this.send(res, exception, up ? BUSY : described));
  }

  private send(res: Response, exception: unknown, { status, body }: { status: number; body: ErrorBody }): void {
    // load shed, not a fault: a line without a stack, so a burst of them costs the busy server little
    if (body.error === 'server_busy') {
      this.logger.warn(`database busy (${exception instanceof Error ? exception.message : String(exception)}): answered 503 server_busy`);
      res.setHeader('Retry-After', String(BUSY_RETRY_AFTER_S));
    } else if (status >= 500) this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    if (!res.headersSent) res.status(status).json(body);
  }

  private describe(exception: unknown): { status: number; body: ErrorBody } {
    if (exception instanceof ValidationError) {
      return { status: 400, body: { error: 'validation_failed', message: exception.message, details: exception.fields } };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      const r = typeof response === 'object' && response !== null ? (response as Record<string, unknown>) : {};
      return {
        status,
        body: {
          error: typeof r.error === 'string' && r.error.includes('_') ? r.error : (NAMES[status] ?? `http_${status}`),
          message: typeof r.message === 'string' ? r.message : exception.message,
          details: r.details ?? [],
        },
      };
    }
    if (isUnstorableInput(exception)) {
      // the validation layer should have answered first: log it, so the gap gets closed
      this.logger.warn(`input refused by the database: ${(exception as Error).message}`);
      return {
        status: 400,
        body: { error: 'unstorable_input', message: 'the database cannot store a value of this request', details: [] },
      };
    }
    if (isPoolBusy(exception)) return BUSY;
    if (isConnectionError(exception)) {
      return { status: 503, body: { error: 'database_unavailable', message: 'the database is unreachable; retry shortly', details: [] } };
    }
    // body-parser errors (too large, malformed JSON) carry a status of their own.
    const e = exception as { status?: number; type?: string; message?: string };
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
      return { status: e.status, body: { error: NAMES[e.status] ?? `http_${e.status}`, message: e.message ?? 'bad request', details: [] } };
    }
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, body: { error: 'internal_error', message: 'internal server error', details: [] } };
  }
}

/**
 * Prisma/Postgres errors that mean "this value does not fit" (too long, out of range, invalid
 * text such as U+0000), as opposed to a fault of the server: Postgres class 22 (data exception).
 */
function isUnstorableInput(e: unknown): boolean {
  const x = e as { code?: unknown; meta?: { code?: unknown } };
  if (typeof x?.code === 'string' && ['P2000', 'P2006', 'P2007', 'P2020', 'P2033'].includes(x.code)) return true;
  const pg = typeof x?.meta?.code === 'string' ? x.meta.code : typeof x?.code === 'string' ? x.code : '';
  return /^22[0-9A-Z]{3}$/.test(pg);
}
