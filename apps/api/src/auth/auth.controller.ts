import { Controller, Inject, Param, Req, Res, UseGuards } from '@nestjs/common';
import { Route, Valid, type Parsed } from '../route.js';
import { SkipThrottle, Throttle, ThrottlerGuard } from '@nestjs/throttler';
import { type Me, ROUTES } from '@starpo/contracts';
import type { Request, Response } from 'express';
import { SETTINGS, type ApiSettings } from '../di-tokens.js';

import { CurrentActor, type Actor } from './actor.js';
import { credentials } from './auth.guard.js';
import { AuthService, SESSION_COOKIE, SESSION_TTL_MS } from './auth.service.js';

@Controller()
export class AuthController {
  constructor(
    @Inject(AuthService) private readonly auth: AuthService,
    @Inject(SETTINGS) private readonly settings: ApiSettings,
  ) {}

  /** Whether the deployment has no account yet (the dashboard then shows "create your team"). */
  @Route(ROUTES.authSetup)
  async setup(): Promise<{ needsSetup: boolean }> {
    return { needsSetup: await this.auth.needsSetup() };
  }

  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ ingest: true })
  @Route(ROUTES.signup)
  async signup(@Valid('body') body: Parsed<typeof ROUTES.signup, 'body'>, @Res({ passthrough: true }) res: Response): Promise<Me> {
    const { me, session } = await this.auth.signup(body);
    this.setCookie(res, session);
    return me;
  }

  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ ingest: true })
  @Throttle({ default: { limit: 10, ttl: 60_000 } })
  @Route(ROUTES.login)
  async login(@Valid('body') body: Parsed<typeof ROUTES.login, 'body'>, @Res({ passthrough: true }) res: Response): Promise<Me> {
    const req = body;
    const { me, session } = await this.auth.login(req.email, req.password);
    this.setCookie(res, session);
    return me;
  }

  @Route(ROUTES.logout)
  async logout(@CurrentActor() actor: Actor, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.auth.logout(actor);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
  }

  @Route(ROUTES.me)
  me(@CurrentActor() actor: Actor): Promise<Me> {
    return this.auth.me(actor.userId, actor.teamId);
  }

  /** `me`, or null when signed out: the dashboard asks this on every page, and being signed out is no error there. */
  @Route(ROUTES.session)
  async session(@Req() req: Request): Promise<{ me: Me | null }> {
    const { bearer, cookie } = credentials(req);
    const actor = await this.auth.resolve(bearer, cookie);
    return { me: actor ? await this.auth.me(actor.userId, actor.teamId) : null };
  }

  /** The session acts for another of the user's teams (`{ teamId }`); API tokens stay with their team. */
  @Route(ROUTES.switchTeam)
  switchTeam(@CurrentActor() actor: Actor, @Valid('body') body: Parsed<typeof ROUTES.switchTeam, 'body'>): Promise<Me> {
    return this.auth.switchTeam(actor, body.teamId);
  }

  private setCookie(res: Response, session: string): void {
    res.cookie(SESSION_COOKIE, session, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.settings.secureCookies ?? false,
      path: '/',
      maxAge: SESSION_TTL_MS,
    });
  }
}

@Controller()
export class TeamController {
  constructor(@Inject(AuthService) private readonly auth: AuthService) {}

  @Route(ROUTES.members)
  members(@CurrentActor() actor: Actor) {
    return this.auth.members(actor);
  }

  /** The invite token is shown once; the new member passes it to signup. */
  @Route(ROUTES.createInvite)
  invite(@CurrentActor() actor: Actor, @Valid('body') body: Parsed<typeof ROUTES.createInvite, 'body'>) {
    const req = body;
    return this.auth.createInvite(actor, req.role, req.email, req.expiresInHours);
  }

  /** A signed-in user joins another team with an invite of that team (`{ invite }`). */
  @Route(ROUTES.joinTeam)
  join(@CurrentActor() actor: Actor, @Valid('body') body: Parsed<typeof ROUTES.joinTeam, 'body'>): Promise<Me> {
    return this.auth.joinTeam(actor, body.invite);
  }

  @Route(ROUTES.invites)
  invites(@CurrentActor() actor: Actor) {
    return this.auth.invites(actor);
  }

  @Route(ROUTES.revokeInvite)
  revokeInvite(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<void> {
    return this.auth.revokeInvite(actor, id);
  }

  @Route(ROUTES.setRole)
  setRole(@CurrentActor() actor: Actor, @Param('userId') userId: string, @Valid('body') body: Parsed<typeof ROUTES.setRole, 'body'>) {
    return this.auth.setRole(actor, userId, body.role);
  }
}

@Controller()
export class TeamsController {
  constructor(@Inject(AuthService) private readonly auth: AuthService) {}

  /** The caller's teams, with the role in each. */
  @Route(ROUTES.teams)
  async list(@CurrentActor() actor: Actor): Promise<Me['teams']> {
    return (await this.auth.me(actor.userId, actor.teamId)).teams;
  }

  /** An administrator of the deployment creates a team, and owns it. */
  @Route(ROUTES.createTeam)
  create(@CurrentActor() actor: Actor, @Valid('body') body: Parsed<typeof ROUTES.createTeam, 'body'>) {
    return this.auth.createTeam(actor, body.name);
  }
}

@Controller()
export class TokensController {
  constructor(@Inject(AuthService) private readonly auth: AuthService) {}

  /** A bearer token for scripts, with the caller's role; its secret is shown once. */
  @Route(ROUTES.createToken)
  create(@CurrentActor() actor: Actor, @Valid('body') body: Parsed<typeof ROUTES.createToken, 'body'>) {
    return this.auth.createToken(actor, body.name);
  }

  @Route(ROUTES.tokens)
  list(@CurrentActor() actor: Actor) {
    return this.auth.tokens(actor);
  }

  @Route(ROUTES.revokeToken)
  revoke(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<void> {
    return this.auth.revokeToken(actor, id);
  }
}
