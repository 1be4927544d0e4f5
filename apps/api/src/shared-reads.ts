import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { finalize, from, lastValueFrom, type Observable } from 'rxjs';
import type { Actor } from './auth/actor.js';

const SHARED_KEY = 'starpo:shared-read';

/** Marks a GET handler whose answer depends only on the caller's team and the URL (see SharedReads). */
export const SharedRead = () => SetMetadata(SHARED_KEY, true);

/**
 * Identical reads of one team that arrive while one is being answered wait for that answer
 * instead of computing their own: a wall screen and a room of laptops poll the same runs list and
 * trajectory page, and under load each answer is then read once per wave, not once per screen.
 * Nothing outlives its request (no cache), and every write of the team through this instance
 * makes its later reads start afresh, so a client always reads its own writes.
 */
@Injectable()
export class SharedReads implements NestInterceptor {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const req = ctx.switchToHttp().getRequest<Request & { actor?: Actor }>();
    const team = req.actor?.teamId;
    if (!team) return next.handle();
    if (req.method !== 'GET') return next.handle().pipe(finalize(() => this.forget(team)));
    if (!Reflect.getMetadata(SHARED_KEY, ctx.getHandler())) return next.handle();
    const key = `${team} ${req.originalUrl}`;
    let answer = this.inFlight.get(key);
    if (!answer) {
      const mine = lastValueFrom(next.handle()).finally(() => {
        if (this.inFlight.get(key) === mine) this.inFlight.delete(key);
      });
      this.inFlight.set(key, (answer = mine));
    }
    return from(answer);
  }

  private forget(team: string): void {
    for (const key of this.inFlight.keys()) if (key.startsWith(`${team} `)) this.inFlight.delete(key);
  }
}
