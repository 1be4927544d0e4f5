import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { ROLE_RANK, type RoleName } from '@starpo/contracts';

/** Who is calling: resolved from the session cookie or a bearer API token by the AuthGuard. */
export interface Actor {
  userId: string;
  teamId: string;
  role: RoleName;
  via: 'session' | 'token';
  sessionId?: string;
}

export const RANK = ROLE_RANK;

export const PUBLIC_KEY = 'starpo:public';
export const MIN_ROLE_KEY = 'starpo:minRole';

/** No authentication needed (health, env catalogue, signup, login). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);
/** The least role that may call the handler; reads default to viewer. */
export const MinRole = (role: RoleName) => SetMetadata(MIN_ROLE_KEY, role);

export const CurrentActor = createParamDecorator((_: unknown, ctx: ExecutionContext): Actor => {
  const actor = ctx.switchToHttp().getRequest<{ actor?: Actor }>().actor;
  if (!actor) throw new Error('CurrentActor used on a public route');
  return actor;
});
