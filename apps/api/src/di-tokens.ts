/** DI token for the Prisma client (`Db` from @starpo/db). */
export const DB = Symbol('DB');
/** DI token for the pg-boss run queue (RunQueue from @starpo/db). */
export const QUEUE = Symbol('QUEUE');
/** DI token for the health checks' own small pool (createProbe from @starpo/db). */
export const PROBE = Symbol('PROBE');
/** DI token for the runtime settings (ApiSettings). */
export const SETTINGS = Symbol('SETTINGS');

export type { ApiSettings } from './settings.js';
