import type { ActiveToken } from '@starpo/db';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCache } from '../src/auth/token-cache.js';
import { createApp } from '../src/bootstrap.js';
import { joinAs, listeningTestApi, signupOwner, WEB_ORIGIN, type ListeningTestApi, type TestUser } from './helpers.js';

const token = (userId: string): ActiveToken => ({ id: `t-${userId}`, userId, teamId: 'team', lastUsedAt: null, role: 'member' });

describe('TokenCache', () => {
  it('answers within its life, forgets a dropped user only, and never stores a read that a drop overtook', async () => {
    const cache = new TokenCache(50);
    cache.set('a', token('u1'), cache.begin());
    cache.set('b', token('u2'), cache.begin());
    expect(cache.get('a')?.userId).toBe('u1');

    const since = cache.begin(); // a lookup starts…
    cache.dropUser('u1'); // …access changes while it runs…
    cache.set('a', token('u1'), since); // …and what it read is not kept
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.userId).toBe('u2');

    await new Promise((r) => setTimeout(r, 80));
    expect(cache.get('b')).toBeUndefined();
  });
});

describe('cached API tokens across instances', () => {
  let t: ListeningTestApi;
  let owner: TestUser;
  beforeAll(async () => {
    t = await listeningTestApi();
    owner = await signupOwner(t);
  });
  afterAll(() => t.close());

  it('a token revoked or demoted through one instance is refused by another at once, not after the cache’s life', async () => {
    const second = await createApp({ databaseUrl: t.database.url, webOrigin: WEB_ORIGIN }, { logger: false });
    await second.init();
    try {
      const other = request(second.getHttpServer());
      const member = await joinAs(t, owner, 'member', 'cached@lab.test');
      const tok = (await t.http.post('/api/tokens').set('Authorization', member.auth).send({ name: 'cached' }).expect(201)).body;
      const auth = `Bearer ${tok.token}`;
      /** ms from `t0` until the second instance answers `status` to `send` (polled every 20 ms, 3 s at most). */
      const until = async (status: number, send: () => request.Test) => {
        const t0 = Date.now();
        while ((await send()).status !== status) {
          if (Date.now() - t0 > 3000) throw new Error(`no ${status} in 3 s`);
          await new Promise((r) => setTimeout(r, 20));
        }
        return Date.now() - t0;
      };

      // the second instance has just resolved (and cached) the token when the first one revokes it
      await other.get('/api/runs').set('Authorization', auth).expect(200);
      await t.http.delete(`/api/tokens/${tok.id}`).set('Authorization', member.auth).expect(204);
      expect(await until(401, () => other.get('/api/runs').set('Authorization', auth))).toBeLessThan(1000);
      await t.http.get('/api/runs').set('Authorization', auth).expect(401); // the first instance at once

      // a role lowered through the first instance: the second stops letting the member launch
      const launch = () => other.post('/api/runs').set('Authorization', member.auth).send({ preset: 'quick-cpu' });
      expect((await launch()).status).toBe(201);
      await t.http.patch(`/api/team/members/${member.userId}`).set('Authorization', owner.auth).send({ role: 'viewer' }).expect(200);
      expect(await until(403, launch)).toBeLessThan(1000);
    } finally {
      await second.close();
    }
  });
});
