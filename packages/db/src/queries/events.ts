import type { RunNotice } from '@starpo/contracts';
import type { Db } from '../client.js';

/** The NOTIFY channel of live run events (same value as contracts' EVENTS_CHANNEL). */
export const EVENTS_CHANNEL = 'starpo_events';

/** Publish a small notice to every API instance listening; receivers fetch details by id. */
export async function publishRunNotice(db: Db, notice: RunNotice): Promise<void> {
  await db.$executeRawUnsafe(`SELECT pg_notify($1, $2)`, EVENTS_CHANNEL, JSON.stringify(notice));
}
