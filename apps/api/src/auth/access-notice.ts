import { EVENTS_CHANNEL, type AccessNotice } from '@starpo/contracts';
import type { Db } from '@starpo/db';

/** Tell every API instance that `userId`'s access changed, so live connections re-check their credentials. */
export async function publishAccessChange(db: Db, userId: string): Promise<void> {
  const notice: AccessNotice = { type: 'access', user: userId };
  await db.$executeRawUnsafe(`SELECT pg_notify($1, $2)`, EVENTS_CHANNEL, JSON.stringify(notice)).catch(() => {});
}
