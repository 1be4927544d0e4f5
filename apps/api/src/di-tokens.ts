/** DI token for the Prisma client (`Db` from @starpo/db). */
export const DB = Symbol('DB');
/** DI token for the pg-boss run queue (RunQueue from @starpo/db). */
export const QUEUE = Symbol('QUEUE');
/** DI token for the runtime settings (ApiSettings). */
export const SETTINGS = Symbol('SETTINGS');

export interface ApiSettings {
  databaseUrl: string;
  /** Origin of the dashboard, allowed by CORS. */
  webOrigin: string;
  /** Mark the session cookie Secure (set when served over HTTPS). */
  secureCookies?: boolean;
  /** Requests per minute and IP on signup/login (default 10/20). */
  authRateLimit?: number;
  /** Ingestion requests per minute and IP (default 600, i.e. 600,000 points a minute). */
  ingestRateLimit?: number;
  /** An external run without ingestion for this long is listed as `crashed` until its next ingestion (default 10 min). */
  externalStaleMs?: number;
  /** An environment preview whose generation runs longer is ended with 422 (default 5 s). */
  previewTimeoutMs?: number;
}
