import { ForbiddenException, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { routeOf } from '../route.js';
import { RANK, type Actor } from './actor.js';
import { AuthService, SESSION_COOKIE } from './auth.service.js';

/** Global guard: each route's contract names the least role it needs, or `public` for none; a route without one is refused. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(@Inject(AuthService) private readonly auth: AuthService) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const route = routeOf(ctx.getHandler());
    // fail closed: a handler mounted without a contract is a bug (test/routes.test.ts keeps it from shipping)
    if (!route) throw new ForbiddenException('this route has no contract');
    if (route.role === 'public') return true;
    const req = ctx.switchToHttp().getRequest<Request & { actor?: Actor }>();
    const { bearer, cookie } = credentials(req);
    const actor = await this.auth.resolve(bearer, cookie);
    if (!actor) throw await this.auth.refusal(bearer);
    const min = route.role;
    if (RANK[actor.role] < RANK[min]) throw new ForbiddenException(`this needs the ${min} role; you are ${actor.role}`);
    req.actor = actor;
    return true;
  }
}

/** The request's bearer API token and session cookie, either possibly absent. */
export function credentials(req: Request): { bearer: string | undefined; cookie: string | undefined } {
  const h = req.headers.authorization;
  return {
    bearer: h?.startsWith('Bearer ') ? h.slice(7).trim() : undefined,
    cookie: (req.cookies as Record<string, string> | undefined)?.[SESSION_COOKIE],
  };
}
