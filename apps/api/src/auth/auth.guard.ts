import { ForbiddenException, Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { RoleName } from '@starpo/contracts';
import type { Request } from 'express';
import { MIN_ROLE_KEY, PUBLIC_KEY, RANK, type Actor } from './actor.js';
import { AuthService, SESSION_COOKIE } from './auth.service.js';

/** Global guard: every route needs a valid session or API token unless marked @Public(). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(AuthService) private readonly auth: AuthService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const req = ctx.switchToHttp().getRequest<Request & { actor?: Actor }>();
    const actor = await this.auth.resolve(bearer(req), (req.cookies as Record<string, string> | undefined)?.[SESSION_COOKIE]);
    if (!actor) throw new UnauthorizedException('sign in or send an API token (Authorization: Bearer …)');
    const min = this.reflector.getAllAndOverride<RoleName>(MIN_ROLE_KEY, targets) ?? 'viewer';
    if (RANK[actor.role] < RANK[min]) throw new ForbiddenException(`this needs the ${min} role; you are ${actor.role}`);
    req.actor = actor;
    return true;
  }
}

function bearer(req: Request): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice(7).trim() : undefined;
}
