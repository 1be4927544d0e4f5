import { ForbiddenException, HttpException, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { storableIssues, ValidationError } from '@starpo/contracts';
import type { Request } from 'express';
import { SETTINGS, type ApiSettings } from '../di-tokens.js';
import { originRefusal, parseOrigins } from './origin.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Global guard that runs before authentication, on every route:
 * - CSRF: a write without a bearer token (so, one the session cookie may authenticate) must pass
 *   the origin rule;
 * - JSON only: a write with a body must send it as application/json, so a form or text/plain post
 *   never reaches a handler (it would arrive as an empty body and take every default);
 * - storable: no NUL characters and no nesting beyond a bound anywhere in the body or query.
 */
@Injectable()
export class RequestGuard implements CanActivate {
  private readonly origins: string[];

  constructor(@Inject(SETTINGS) settings: ApiSettings) {
    this.origins = parseOrigins(settings.webOrigin);
  }

  canActivate(ctx: ExecutionContext): boolean {
    if (ctx.getType() !== 'http') return true;
    const req = ctx.switchToHttp().getRequest<Request>();
    if (!SAFE.has(req.method)) {
      if (!req.headers.authorization?.startsWith('Bearer ')) {
        const refusal = originRefusal(req, this.origins);
        if (refusal)
          throw new ForbiddenException({
            error: 'cross_origin_refused',
            message: refusal,
            details: [{ path: 'origin', message: refusal }],
          });
      }
      if (hasBody(req) && !req.is('application/json'))
        throw new HttpException(
          {
            error: 'unsupported_media_type',
            message: `send the body as application/json (got ${req.headers['content-type'] ?? 'no content type'})`,
            details: [{ path: 'content-type', message: 'expected application/json' }],
          },
          415,
        );
    }
    const query = storableIssues(req.query);
    if (query.length) throw new ValidationError(query, 'query');
    const body = storableIssues(req.body);
    if (body.length) throw new ValidationError(body, 'request');
    return true;
  }
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}
