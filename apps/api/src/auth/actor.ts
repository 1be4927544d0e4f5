import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ROLE_RANK, type RoleName } from '@starpo/contracts';

/** Who is calling: resolved from the session cookie or a bearer API token by the AuthGuard. */
export interface Actor {
  userId: string;
  teamId: string;
  role: RoleName;
  via: 'session' | 'token';
  sessionId?: string;
  /** The API token's id, when it is the caller. */
  tokenId?: string;
}

export const RANK = ROLE_RANK;

export const CurrentActor = createParamDecorator((_: unknown, ctx: ExecutionContext): Actor => {
  const actor = ctx.switchToHttp().getRequest<{ actor?: Actor }>().actor;
  if (!actor) throw new Error('CurrentActor used on a public route');
  return actor;
});
