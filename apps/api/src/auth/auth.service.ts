import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import type { CreatedInvite, CreatedToken, InviteInfo, Me, RoleName, TeamMember, TokenInfo } from '@starpo/contracts';
import { findActiveToken, type Db } from '@starpo/db';
import { DB } from '../di-tokens.js';
import type { Actor } from './actor.js';
import { publishAccessChange } from './access-notice.js';
import { PgListener } from '../events/pg-listener.js';
import { TokenCache } from './token-cache.js';
import { hashPassword, hashSecret, newSecret, verifyPassword } from './secrets.js';

export const SESSION_COOKIE = 'starpo_session';
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
const TOKEN_PREFIX = 'stp_';
const SIGNUP_LOCK = 72707370; // advisory lock: the "first account creates the team" check is atomic

@Injectable()
export class AuthService {
  /** A real argon2 hash to verify against when the email is unknown, so both answers take as long. */
  private readonly dummyHash = hashPassword(newSecret('dummy_'));

  private readonly tokenCache = new TokenCache();
  private readonly sessionCache = new TokenCache<SessionAccess>();

  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(PgListener) listener: PgListener,
  ) {
    // access changed through another instance: forget that user's tokens here too
    listener.onNotice((n) => {
      if (n.type === 'access') this.dropUser(n.user);
    });
    // notices sent while away are lost
    listener.onReconnect(() => {
      this.tokenCache.clear();
      this.sessionCache.clear();
    });
  }

  /** After a change of `userId`'s access has committed: drop their cached tokens here, then tell the other instances. */
  private async accessChanged(userId: string): Promise<void> {
    this.dropUser(userId);
    await publishAccessChange(this.db, userId);
  }

  private dropUser(userId: string): void {
    this.tokenCache.dropUser(userId);
    this.sessionCache.dropUser(userId);
  }

  async needsSetup(): Promise<boolean> {
    return (await this.db.user.count()) === 0;
  }

  /**
   * Create an account. On an empty deployment it creates the team and becomes its owner;
   * otherwise it must bring an unexpired, unused invite, which decides team and role.
   */
  async signup(req: {
    email: string;
    password: string;
    name: string;
    teamName?: string;
    invite?: string;
  }): Promise<{ me: Me; session: string }> {
    const passwordHash = await hashPassword(req.password);
    const userId = await this.db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${SIGNUP_LOCK})`);
      if (await tx.user.findUnique({ where: { email: req.email } }))
        throw new ConflictException(`an account for ${req.email} exists; sign in`);
      const first = (await tx.user.count()) === 0;
      let teamId: string;
      let role: RoleName;
      if (first) {
        teamId = (await tx.team.create({ data: { name: req.teamName ?? 'My team' } })).id;
        role = 'owner';
      } else {
        if (!req.invite)
          throw new ForbiddenException(
            'this deployment has teams already: sign in with POST /api/auth/login if you have an account, or ask a team owner for an invite',
          );
        ({ teamId, role } = await takeInvite(tx, req.invite, req.email));
      }
      const user = await tx.user.create({ data: { email: req.email, name: req.name, passwordHash, isAdmin: first } });
      await tx.membership.create({ data: { userId: user.id, teamId, role } });
      return user.id;
    });
    const session = await this.createSession(userId);
    return { me: await this.me(userId), session };
  }

  async login(email: string, password: string): Promise<{ me: Me; session: string }> {
    const user = await this.db.user.findUnique({ where: { email } });
    // verify against a fixed hash when the user is unknown, so timing does not reveal accounts
    const ok = await verifyPassword(user?.passwordHash ?? (await this.dummyHash), password);
    if (!user || !ok) throw new UnauthorizedException('wrong email or password');
    return { me: await this.me(user.id), session: await this.createSession(user.id) };
  }

  async logout(actor: Actor): Promise<void> {
    if (actor.sessionId) await this.db.session.deleteMany({ where: { id: actor.sessionId } });
    await this.accessChanged(actor.userId);
  }

  /** The user, the team they act for (`teamId`, else their first) and all their teams. */
  async me(userId: string, teamId?: string): Promise<Me> {
    const all = await this.db.membership.findMany({
      where: { userId },
      include: { user: true, team: true },
      orderBy: { createdAt: 'asc' },
    });
    const m = all.find((x) => x.teamId === teamId) ?? all[0];
    if (!m) throw new UnauthorizedException('this account belongs to no team');
    return {
      user: { id: m.user.id, email: m.user.email, name: m.user.name },
      team: { id: m.team.id, name: m.team.name },
      role: m.role,
      teams: all.map((x) => ({ id: x.team.id, name: x.team.name, role: x.role })),
      admin: m.user.isAdmin,
    };
  }

  /** An administrator creates a team and becomes its owner; members join it by invite. */
  async createTeam(actor: Actor, name: string): Promise<{ id: string; name: string }> {
    const user = await this.db.user.findUniqueOrThrow({ where: { id: actor.userId } });
    if (!user.isAdmin) throw new ForbiddenException('only an administrator of the deployment creates teams');
    const team = await this.db.team.create({ data: { name, memberships: { create: { userId: actor.userId, role: 'owner' } } } });
    return { id: team.id, name: team.name };
  }

  /** A signed-in user accepts an invite into another team. */
  async joinTeam(actor: Actor, token: string): Promise<Me> {
    const user = await this.db.user.findUniqueOrThrow({ where: { id: actor.userId } });
    const teamId = await this.db.$transaction(async (tx) => {
      const taken = await takeInvite(tx, token, user.email);
      if (await tx.membership.findUnique({ where: { userId_teamId: { userId: user.id, teamId: taken.teamId } } }))
        throw new ConflictException('you are a member of that team already');
      await tx.membership.create({ data: { userId: user.id, teamId: taken.teamId, role: taken.role } });
      return taken.teamId;
    });
    return this.me(user.id, teamId);
  }

  /** The session acts for another of its user's teams from now on (404 for a team the user is not in). */
  async switchTeam(actor: Actor, teamId: string): Promise<Me> {
    if (!actor.sessionId) throw new ConflictException('an API token belongs to one team; create one in the other team');
    const m = await this.db.membership.findUnique({ where: { userId_teamId: { userId: actor.userId, teamId } } });
    if (!m) throw new NotFoundException(`team ${teamId} not found`);
    await this.db.session.update({ where: { id: actor.sessionId }, data: { teamId } });
    await this.accessChanged(actor.userId);
    return this.me(actor.userId, teamId);
  }

  /**
   * The caller behind an API token or a session cookie, or null. A token or session seen in the
   * last two seconds is answered from its TokenCache; `fresh` asks the database (sockets: their handshake and
   * re-checks).
   */
  async resolve(bearer: string | undefined, cookie: string | undefined, opts: { fresh?: boolean } = {}): Promise<Actor | null> {
    if (bearer) {
      const hash = hashSecret(bearer);
      const t = await this.tokenCache.through(hash, opts.fresh ?? false, () => findActiveToken(this.db, hash));
      if (!t) return null;
      if (!t.lastUsedAt || Date.now() - t.lastUsedAt.getTime() > 60_000) {
        t.lastUsedAt = new Date();
        await this.db.apiToken.update({ where: { id: t.id }, data: { lastUsedAt: t.lastUsedAt } });
      }
      return { userId: t.userId, teamId: t.teamId, role: t.role, via: 'token', tokenId: t.id };
    }
    if (cookie) {
      const hash = hashSecret(cookie);
      const s = await this.sessionCache.through(hash, opts.fresh ?? false, () => this.findSession(hash));
      if (!s || s.expiresAt < new Date()) return null;
      return { userId: s.userId, teamId: s.teamId, role: s.role, via: 'session', sessionId: s.sessionId };
    }
    return null;
  }

  /** The session behind a cookie's hash with the team it acts for and the role there, or null. */
  private async findSession(hash: string): Promise<SessionAccess | null> {
    const s = await this.db.session.findUnique({ where: { tokenHash: hash } });
    if (!s) return null;
    const m =
      (s.teamId ? await this.db.membership.findUnique({ where: { userId_teamId: { userId: s.userId, teamId: s.teamId } } }) : null) ??
      (await this.db.membership.findFirst({ where: { userId: s.userId }, orderBy: { createdAt: 'asc' } }));
    if (!m) return null;
    return { sessionId: s.id, userId: s.userId, teamId: m.teamId, role: m.role, expiresAt: s.expiresAt };
  }

  /**
   * The 401 for a request `resolve` refused. A bearer token says what is wrong with it (a script's
   * author otherwise cannot tell a revoked token from a mistyped one); no credentials: sign in.
   */
  async refusal(bearer: string | undefined): Promise<UnauthorizedException> {
    if (!bearer) return new UnauthorizedException('sign in or send an API token (Authorization: Bearer …)');
    const t = await this.db.apiToken.findUnique({ where: { tokenHash: hashSecret(bearer) }, select: { name: true, revokedAt: true } });
    const fix = 'create a new one in Settings → API tokens';
    if (!t)
      return new UnauthorizedException({
        error: 'invalid_token',
        message: `this API token is not valid: check it was copied whole, or ${fix}`,
      });
    if (t.revokedAt)
      return new UnauthorizedException({
        error: 'token_revoked',
        message: `this API token ("${t.name}") was revoked on ${t.revokedAt.toISOString().slice(0, 10)}; ${fix}`,
      });
    return new UnauthorizedException({
      error: 'invalid_token',
      message: `this API token's user is no longer a member of its team; ${fix}`,
    });
  }

  async createInvite(actor: Actor, role: RoleName, email: string | undefined, hours: number): Promise<CreatedInvite> {
    const token = newSecret('inv_');
    const invite = await this.db.invite.create({
      data: {
        teamId: actor.teamId,
        role,
        email: email ?? null,
        tokenHash: hashSecret(token),
        expiresAt: new Date(Date.now() + hours * 3600_000),
      },
    });
    return { id: invite.id, token, role, email: invite.email, expiresAt: invite.expiresAt.toISOString() };
  }

  /** Invites not yet accepted, newest first, expired ones included so an owner sees why a link failed. */
  async invites(actor: Actor): Promise<InviteInfo[]> {
    const rows = await this.db.invite.findMany({ where: { teamId: actor.teamId, acceptedAt: null }, orderBy: { createdAt: 'desc' } });
    return rows.map((i) => ({
      id: i.id,
      role: i.role,
      email: i.email,
      createdAt: i.createdAt.toISOString(),
      expiresAt: i.expiresAt.toISOString(),
      expired: i.expiresAt < new Date(),
    }));
  }

  /** Revoking deletes the invite: its token then matches nothing, like an unknown one. */
  async revokeInvite(actor: Actor, id: string): Promise<void> {
    const n = await this.db.invite.deleteMany({ where: { id, teamId: actor.teamId, acceptedAt: null } }).catch(() => ({ count: 0 }));
    if (n.count === 0) throw new NotFoundException(`invite ${id} not found`);
  }

  async members(actor: Actor): Promise<TeamMember[]> {
    const rows = await this.db.membership.findMany({
      where: { teamId: actor.teamId },
      include: { user: true },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map((m) => ({
      userId: m.userId,
      email: m.user.email,
      name: m.user.name,
      role: m.role,
      joinedAt: m.createdAt.toISOString(),
    }));
  }

  async setRole(actor: Actor, userId: string, role: RoleName): Promise<TeamMember | undefined> {
    const m = await this.db.membership.findUnique({ where: { userId_teamId: { userId, teamId: actor.teamId } } }).catch(() => null);
    if (!m) throw new NotFoundException(`member ${userId} not found`);
    if (
      m.role === 'owner' &&
      role !== 'owner' &&
      (await this.db.membership.count({ where: { teamId: actor.teamId, role: 'owner' } })) === 1
    )
      throw new ConflictException('a team keeps at least one owner');
    await this.db.membership.update({ where: { userId_teamId: { userId, teamId: actor.teamId } }, data: { role } });
    await this.accessChanged(userId);
    return (await this.members(actor)).find((x) => x.userId === userId);
  }

  async createToken(actor: Actor, name: string): Promise<CreatedToken> {
    const token = newSecret(TOKEN_PREFIX);
    const row = await this.db.apiToken.create({
      data: { userId: actor.userId, teamId: actor.teamId, name, tokenHash: hashSecret(token), prefix: token.slice(0, 10) },
    });
    return { ...tokenView(row), token };
  }

  async tokens(actor: Actor): Promise<TokenInfo[]> {
    const rows = await this.db.apiToken.findMany({ where: { userId: actor.userId, teamId: actor.teamId }, orderBy: { createdAt: 'desc' } });
    return rows.map(tokenView);
  }

  async revokeToken(actor: Actor, id: string): Promise<void> {
    const n = await this.db.apiToken
      .updateMany({ where: { id, userId: actor.userId, revokedAt: null }, data: { revokedAt: new Date() } })
      .catch(() => ({ count: 0 }));
    if (n.count === 0) throw new NotFoundException(`token ${id} not found`);
    await this.accessChanged(actor.userId);
  }

  private async createSession(userId: string): Promise<string> {
    const token = newSecret('');
    await this.db.session.create({ data: { userId, tokenHash: hashSecret(token), expiresAt: new Date(Date.now() + SESSION_TTL_MS) } });
    return token;
  }
}

/** A session as the AuthGuard needs it, cached like a token. */
interface SessionAccess {
  sessionId: string;
  userId: string;
  teamId: string;
  role: RoleName;
  expiresAt: Date;
}

function tokenView(t: {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): TokenInfo {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    createdAt: t.createdAt.toISOString(),
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
  };
}

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** Mark an unexpired, unused invite as taken by `email`; its team and role. 400 naming the field otherwise. */
async function takeInvite(tx: Tx, token: string, email: string): Promise<{ teamId: string; role: RoleName }> {
  const invite = await tx.invite.findUnique({ where: { tokenHash: hashSecret(token) } });
  if (!invite || invite.acceptedAt || invite.expiresAt < new Date())
    throw new BadRequestException({
      message: 'the invite is unknown, used or expired',
      details: [{ path: 'invite', message: 'invalid invite' }],
    });
  if (invite.email && invite.email !== email)
    throw new BadRequestException({
      message: `the invite is for ${invite.email}`,
      details: [{ path: 'email', message: 'does not match the invite' }],
    });
  await tx.invite.update({ where: { id: invite.id }, data: { acceptedAt: new Date() } });
  return { teamId: invite.teamId, role: invite.role };
}
