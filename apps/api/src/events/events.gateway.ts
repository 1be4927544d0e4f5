import { Inject, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway, WebSocketServer, type OnGatewayInit } from '@nestjs/websockets';
import {
  INT32_MAX,
  LIVE,
  SUBSCRIBE_CATCH_UP_LIMIT,
  type LogEvent,
  type MetricsEvent,
  type RunNotice,
  type StatusEvent,
  type SubscribeAck,
  type TrajectoriesEvent,
} from '@starpo/contracts';
import { isConnectionError, runPointsByStep, type Db } from '@starpo/db';
import { z } from 'zod';
import type { Server, Socket } from 'socket.io';
import type { Actor } from '../auth/actor.js';
import { AuthService, SESSION_COOKIE } from '../auth/auth.service.js';
import { DB } from '../di-tokens.js';
import { PgListener } from './pg-listener.js';

// afterStep + 1 is the first step asked for, a Postgres int
const subscribeSchema = z
  .object({
    runId: z.string().uuid(),
    afterStep: z
      .number()
      .int()
      .min(-1)
      .max(INT32_MAX - 1)
      .optional(),
  })
  .strict();
const room = (runId: string) => `run:${runId}`;
/** Every live connection re-checks its credentials this often, in case an access notice was missed. */
const RECHECK_MS = 60_000;
/** A subscribe that failed closes the client's transport after this long (its answer goes out first). */
const RESUBSCRIBE_DELAY_MS = 250;

/** What a socket authenticated with, kept to re-check it when access changes. */
interface SocketData {
  actor?: Actor;
  credentials?: { token?: string; cookie?: string };
}

/**
 * socket.io gateway. A client authenticates with its session cookie or `auth: { token }`, then
 * `subscribe`s to runs of its team; it gets a catch-up (status and metric points after its last
 * step) and then live `status`, `metrics`, `trajectories` and `log` events for that run.
 */
@WebSocketGateway({ path: '/socket.io' })
export class EventsGateway implements OnGatewayInit, OnApplicationShutdown {
  @WebSocketServer() server!: Server;
  private readonly logger = new Logger('gateway');
  private readonly recheckTimer = setInterval(() => void this.recheck(() => true), RECHECK_MS).unref();
  /** Per run, the last notice being forwarded (see forwardInOrder). */
  private readonly forwarding = new Map<string, Promise<void>>();

  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(AuthService) private readonly auth: AuthService,
    @Inject(PgListener) listener: PgListener,
  ) {
    listener.onNotice((n) => {
      if (n.type === 'access') void this.recheck((a) => a.userId === n.user);
      else this.forwardInOrder(n);
    });
    // Notices published while the database was away never arrived: close every transport, so each
    // client reconnects and subscribes again from its last step (the catch-up fills the gap).
    listener.onReconnect(() => {
      const sockets = [...(this.server?.sockets.sockets.values() ?? [])];
      if (sockets.length) this.logger.warn(`events connection restored; ${sockets.length} live client(s) reconnect to catch up`);
      for (const socket of sockets) socket.conn.close();
    });
  }

  private inRoom(runId: string): Socket[] {
    const ids = this.server?.sockets.adapter.rooms.get(room(runId)) ?? new Set<string>();
    return [...ids].flatMap((id) => this.server.sockets.sockets.get(id) ?? []);
  }

  onApplicationShutdown(): void {
    clearInterval(this.recheckTimer);
  }

  /**
   * Disconnect the matching sockets whose session or token no longer resolves to the same team
   * and role (logged out, revoked, role changed); a client with valid credentials reconnects.
   */
  private async recheck(which: (a: Actor) => boolean): Promise<void> {
    for (const socket of this.server?.sockets.sockets.values() ?? []) {
      const data = socket.data as SocketData;
      if (!data.actor || !which(data.actor)) continue;
      const now = await this.auth.resolve(data.credentials?.token, data.credentials?.cookie, { fresh: true }).catch(() => undefined);
      if (now === undefined) continue; // database away: keep the connection, check again later
      if (!now || now.teamId !== data.actor.teamId || now.role !== data.actor.role) {
        socket.emit('access_changed', { message: now ? 'your role changed; reconnect' : 'your session or token was revoked' });
        socket.disconnect(true);
      }
    }
  }

  /** Authenticate in the handshake, before the connection exists (a refused client gets connect_error "unauthorized"). */
  afterInit(server: Server): void {
    server.use((socket, next) => {
      const token = typeof socket.handshake.auth?.token === 'string' ? (socket.handshake.auth.token as string) : undefined;
      const raw = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([^;]+)`).exec(socket.handshake.headers.cookie ?? '')?.[1];
      const cookie = raw ? safeDecode(raw) : undefined;
      // a socket is authenticated once and kept: ask the database, as before the token cache
      this.auth
        .resolve(token, cookie, { fresh: true })
        .then((actor) => {
          if (!actor) return next(new Error('unauthorized'));
          const data = socket.data as SocketData;
          data.actor = actor;
          data.credentials = token ? { token } : { cookie };
          next();
        })
        .catch(() => {
          // database away: a refused handshake would be final for the client, a closed transport
          // makes it reconnect with its own backoff
          this.logger.warn('socket handshake while the database is unreachable: closing the transport, the client retries');
          socket.conn.close();
        });
    });
  }

  /** Ack: `{ ok: true, status, metrics: MetricsEvent[] }` or `{ ok: false, error, message }`. */
  @SubscribeMessage('subscribe')
  async subscribe(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<SubscribeAck> {
    try {
      return await this.join(socket, body);
    } catch (e) {
      if (!isConnectionError(e)) throw e;
      // Without this the client would stay connected but outside the run's room, deaf to it. Closing
      // the transport once the answer is out makes it reconnect and subscribe again from its last step.
      this.logger.warn(`subscribe failed (${(e as Error).message.trim().split('\n').at(-1)}); the client reconnects to retry`);
      setTimeout(() => socket.conn.close(), RESUBSCRIBE_DELAY_MS).unref();
      return { ok: false, error: 'unavailable', message: 'the database is unreachable; reconnecting to subscribe again' };
    }
  }

  private async join(socket: Socket, body: unknown): Promise<SubscribeAck> {
    const actor = (socket.data as SocketData).actor;
    if (!actor) return { ok: false, error: 'unauthorized', message: 'not signed in' };
    const req = subscribeSchema.safeParse(body);
    if (!req.success)
      return { ok: false, error: 'bad_request', message: req.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
    const run = await this.db.run.findFirst({ where: { id: req.data.runId, teamId: actor.teamId } });
    if (!run) return { ok: false, error: 'not_found', message: `run ${req.data.runId} not found` };
    await socket.join(room(run.id));
    const points = await runPointsByStep(this.db, run.id, (req.data.afterStep ?? -1) + 1, null, SUBSCRIBE_CATCH_UP_LIMIT + 1);
    const status = await this.status(run.id);
    // a client that missed a lot reloads over HTTP (downsampled) instead of receiving every point here
    if (points.length > SUBSCRIBE_CATCH_UP_LIMIT) return { ok: true, status, metrics: [], truncated: true } satisfies SubscribeAck;
    return { ok: true, status, metrics: byStep(run.id, points) } satisfies SubscribeAck;
  }

  @SubscribeMessage('unsubscribe')
  async unsubscribe(@ConnectedSocket() socket: Socket, @MessageBody() body: { runId?: string }) {
    if (typeof body?.runId === 'string') await socket.leave(room(body.runId));
    return { ok: true };
  }

  /**
   * Forward a run's notices one after another: each reads the database before it emits, and two
   * reads in flight at once could answer (and emit steps) out of order.
   */
  private forwardInOrder(n: RunNotice): void {
    const next = (this.forwarding.get(n.run) ?? Promise.resolve())
      .then(() => this.forward(n))
      .catch((e: Error) => {
        this.logger.warn(`event for run ${n.run}: ${e.message}`);
        // the room's clients would miss these points for good: they reconnect and catch up instead
        if (isConnectionError(e)) for (const socket of this.inRoom(n.run)) socket.conn.close();
      });
    this.forwarding.set(n.run, next);
    void next.then(() => {
      if (this.forwarding.get(n.run) === next) this.forwarding.delete(n.run);
    });
  }

  private async forward(n: RunNotice): Promise<void> {
    const to = this.server?.to(room(n.run));
    if (!to || (this.server.sockets.adapter.rooms.get(room(n.run))?.size ?? 0) === 0) return;
    if (n.type === 'metrics') {
      const rows = await runPointsByStep(this.db, n.run, n.from ?? n.step, n.step);
      for (const ev of byStep(n.run, rows)) to.emit(LIVE.metrics, ev);
    } else if (n.type === 'status') {
      const ev = await this.status(n.run);
      if (ev) to.emit(LIVE.status, ev);
    } else if (n.type === 'trajectories') {
      const rows = await this.db.trajectory.findMany({
        where: { runId: n.run, step: n.step },
        select: { success: true, totalReward: true },
      });
      const ev: TrajectoriesEvent = {
        runId: n.run,
        step: n.step,
        count: rows.length,
        successRate: rows.length ? rows.filter((r) => r.success).length / rows.length : 0,
        meanReward: rows.length ? rows.reduce((s, r) => s + r.totalReward, 0) / rows.length : 0,
      };
      to.emit(LIVE.trajectories, ev);
    } else if (n.type === 'log' && /^\d+$/.test(n.id)) {
      const l = await this.db.runLog.findUnique({ where: { id: BigInt(n.id) } });
      if (l)
        to.emit(LIVE.log, {
          runId: n.run,
          id: n.id,
          level: l.level,
          code: l.code,
          message: l.message,
          at: l.at.toISOString(),
        } satisfies LogEvent);
    }
  }

  private async status(runId: string): Promise<StatusEvent | null> {
    const r = await this.db.run.findUnique({ where: { id: runId } });
    if (!r) return null;
    return {
      runId,
      status: r.status,
      currentStep: r.currentStep,
      totalSteps: r.totalSteps,
      stopReason: r.stopReason,
      cancelRequested: r.cancelRequestedAt !== null && r.status === 'running',
    };
  }
}

/** Step-ordered points → one event per step. */
function byStep(runId: string, points: { step: number; key: string; value: number }[]): MetricsEvent[] {
  const steps = new Map<number, Record<string, number>>();
  for (const p of points) {
    const values = steps.get(p.step) ?? {};
    values[p.key] = p.value;
    steps.set(p.step, values);
  }
  return [...steps].map(([step, values]) => ({ runId, step, values }));
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined; // a malformed cookie authenticates nobody
  }
}
