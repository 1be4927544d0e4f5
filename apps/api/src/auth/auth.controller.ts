import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Res, UseGuards } from '@nestjs/common';
import { SkipThrottle, Throttle, ThrottlerGuard } from '@nestjs/throttler';
import {
  createInviteSchema,
  createTeamSchema,
  createTokenSchema,
  joinTeamSchema,
  loginSchema,
  signupSchema,
  switchTeamSchema,
  updateMemberSchema,
  type Me,
} from '@starpo/contracts';
import type { Response } from 'express';
import { SETTINGS, type ApiSettings } from '../di-tokens.js';
import { parseInput } from '../validation.js';
import { CurrentActor, MinRole, Public, type Actor } from './actor.js';
import { AuthService, SESSION_COOKIE, SESSION_TTL_MS } from './auth.service.js';

@Controller('api/auth')
export class AuthController {
  constructor(
    @Inject(AuthService) private readonly auth: AuthService,
    @Inject(SETTINGS) private readonly settings: ApiSettings,
  ) {}

  /** Whether the deployment has no account yet (the dashboard then shows "create your team"). */
  @Public()
  @Get('setup')
  async setup(): Promise<{ needsSetup: boolean }> {
    return { needsSetup: await this.auth.needsSetup() };
  }

  @Public()
  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ ingest: true })
  @Post('signup')
  @HttpCode(201)
  async signup(@Body() body: unknown, @Res({ passthrough: true }) res: Response): Promise<Me> {
    const { me, session } = await this.auth.signup(parseInput(signupSchema, body));
    this.setCookie(res, session);
    return me;
  }

  @Public()
  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ ingest: true })
  @Throttle({ default: { limit: 10, ttl: 60_000 } })
  @Post('login')
  @HttpCode(200)
  async login(@Body() body: unknown, @Res({ passthrough: true }) res: Response): Promise<Me> {
    const req = parseInput(loginSchema, body);
    const { me, session } = await this.auth.login(req.email, req.password);
    this.setCookie(res, session);
    return me;
  }

  @Post('logout')
  @HttpCode(204)
  async logout(@CurrentActor() actor: Actor, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.auth.logout(actor);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
  }

  @Get('me')
  me(@CurrentActor() actor: Actor): Promise<Me> {
    return this.auth.me(actor.userId, actor.teamId);
  }

  /** The session acts for another of the user's teams (`{ teamId }`); API tokens stay with their team. */
  @Post('team')
  @HttpCode(200)
  switchTeam(@CurrentActor() actor: Actor, @Body() body: unknown): Promise<Me> {
    return this.auth.switchTeam(actor, parseInput(switchTeamSchema, body).teamId);
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

@Controller('api/team')
export class TeamController {
  constructor(@Inject(AuthService) private readonly auth: AuthService) {}

  @Get('members')
  members(@CurrentActor() actor: Actor) {
    return this.auth.members(actor);
  }

  /** The invite token is shown once; the new member passes it to signup. */
  @MinRole('owner')
  @Post('invites')
  @HttpCode(201)
  invite(@CurrentActor() actor: Actor, @Body() body: unknown) {
    const req = parseInput(createInviteSchema, body);
    return this.auth.createInvite(actor, req.role, req.email, req.expiresInHours);
  }

  /** A signed-in user joins another team with an invite of that team (`{ invite }`). */
  @Post('join')
  @HttpCode(200)
  join(@CurrentActor() actor: Actor, @Body() body: unknown): Promise<Me> {
    return this.auth.joinTeam(actor, parseInput(joinTeamSchema, body).invite);
  }

  @MinRole('owner')
  @Get('invites')
  invites(@CurrentActor() actor: Actor) {
    return this.auth.invites(actor);
  }

  @MinRole('owner')
  @Delete('invites/:id')
  @HttpCode(204)
  revokeInvite(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<void> {
    return this.auth.revokeInvite(actor, id);
  }

  @MinRole('owner')
  @Patch('members/:userId')
  setRole(@CurrentActor() actor: Actor, @Param('userId') userId: string, @Body() body: unknown) {
    return this.auth.setRole(actor, userId, parseInput(updateMemberSchema, body).role);
  }
}

@Controller('api/teams')
export class TeamsController {
  constructor(@Inject(AuthService) private readonly auth: AuthService) {}

  /** The caller's teams, with the role in each. */
  @Get()
  async list(@CurrentActor() actor: Actor): Promise<Me['teams']> {
    return (await this.auth.me(actor.userId, actor.teamId)).teams;
  }

  /** An administrator of the deployment creates a team, and owns it. */
  @Post()
  @HttpCode(201)
  create(@CurrentActor() actor: Actor, @Body() body: unknown) {
    return this.auth.createTeam(actor, parseInput(createTeamSchema, body).name);
  }
}

@Controller('api/tokens')
export class TokensController {
  constructor(@Inject(AuthService) private readonly auth: AuthService) {}

  /** A bearer token for scripts, with the caller's role; its secret is shown once. */
  @Post()
  @HttpCode(201)
  create(@CurrentActor() actor: Actor, @Body() body: unknown) {
    return this.auth.createToken(actor, parseInput(createTokenSchema, body).name);
  }

  @Get()
  list(@CurrentActor() actor: Actor) {
    return this.auth.tokens(actor);
  }

  @Delete(':id')
  @HttpCode(204)
  revoke(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<void> {
    return this.auth.revokeToken(actor, id);
  }
}
