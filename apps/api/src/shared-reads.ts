import { Inject, Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { from, lastValueFrom, finalize, type Observable } from 'rxjs';
import type { Actor } from './auth/actor.js';

const SHARED_KEY = 'starpo:shared-read';

/** Marks a GET handler whose answer depends only on the caller's team and the URL (see SharedReads). */
export const SharedRead = () => SetMetadata(SHARED_KEY, true);

/**
 * Reads of one team in progress, by what they read. An identical read that arrives while one runs
 * waits for that one's answer instead of starting its own: a wall screen and a room of laptops poll
 * the same runs list, trajectory page and charts, and under load each is then read once per wave,
 * not once per screen. Nothing outlives its read (no cache), and every write of the team through
 * this instance makes its later reads start afresh (SharedReads calls `forget`), so a client always
 * reads its own writes.
 */
@Injectable()
export class TeamReadsInFlight {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  share<T>(team: string, what: string, read: () => Promise<T>): Promise<T> {
    const key = `${team} ${what}`;
    let answer = this.inFlight.get(key) as Promise<T> | undefined;
    if (!answer) {
      const mine = read().finally(() => {
        if (this.inFlight.get(key) === mine) this.inFlight.delete(key);
      });
      this.inFlight.set(key, (answer = mine));
    }
    return answer;
  }

  forget(team: string): void {
    for (const key of this.inFlight.keys()) if (key.startsWith(`${team} `)) this.inFlight.delete(key);
  }
}

/** Shares the answers of GET handlers marked `@SharedRead()` by URL, and forgets a team's reads on its writes. */
@Injectable()
export class SharedReads implements NestInterceptor {
  constructor(@Inject(TeamReadsInFlight) private readonly reads: TeamReadsInFlight) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const req = ctx.switchToHttp().getRequest<Request & { actor?: Actor }>();
    const team = req.actor?.teamId;
    if (!team) return next.handle();
    if (req.method !== 'GET') return next.handle().pipe(finalize(() => this.reads.forget(team)));
    if (!Reflect.getMetadata(SHARED_KEY, ctx.getHandler())) return next.handle();
    return from(this.reads.share(team, `url ${req.originalUrl}`, () => lastValueFrom(next.handle())));
  }
}
