import { defineSettings, envVar } from '@starpo/contracts';
import { dbVars, sweepTimings, sweepVars } from '@starpo/db';

/** The API's port unless API_PORT says otherwise (npm start's too). */
export const DEFAULT_API_PORT = 3001;

/** Every environment variable the API process reads, with its default and meaning (docs/deployment.md is printed from it). */
export const apiEnv = defineSettings({
  DATABASE_URL: envVar.postgresUrl({ required: true, description: 'the database (npm start sets it, for the embedded one by default)' }),
  API_PORT: envVar.port({ default: DEFAULT_API_PORT, description: 'port the API listens on' }),
  API_HOST: envVar.text({ default: '127.0.0.1', description: 'address the API listens on' }),
  WEB_ORIGIN: envVar.text({
    default: 'http://127.0.0.1:3000',
    description: "the dashboard's origin(s), comma-separated: CORS and the CSRF origin rule allow only these",
  }),
  SECURE_COOKIES: envVar.flag({ description: 'mark the session cookie Secure (when served over HTTPS)' }),
  AUTH_RATE_LIMIT: envVar.int({ default: 20, min: 1, description: 'requests a minute and IP on signup and login' }),
  INGEST_RATE_LIMIT: envVar.int({ default: 600, min: 1, description: 'ingestion requests a minute and IP (of up to 1,000 points each)' }),
  EXTERNAL_STALE_MS: envVar.ms({
    default: 600_000,
    description: 'an external run without ingestion for this long is listed as crashed until its next ingestion',
  }),
  PREVIEW_TIMEOUT_MS: envVar.ms({ default: 5_000, description: 'an environment preview whose generation runs longer is answered 422' }),
  API_SHUTDOWN_MS: envVar.ms({ default: 10_000, description: 'on SIGTERM/SIGINT the API drains for at most this long, then exits' }),
  ...dbVars,
  // the API answers within seconds: a frozen database gives 503, never a hanging request
  DB_QUERY_TIMEOUT_MS: envVar.ms({ default: 4_000, description: 'a query of the API fails after this long (503)' }),
  DB_CONNECT_TIMEOUT_MS: envVar.ms({
    default: 2_000,
    description:
      'the API gives up opening a database connection, or waiting for a free one of its pool, after this long (503; a full pool answers `server_busy` with Retry-After)',
  }),
  DB_POOL_SIZE: envVar.int({ default: 20, min: 1, description: "connections in the API's database pool" }),
  ...sweepVars,
});

export interface ApiSettings {
  databaseUrl: string;
  port: number;
  host: string;
  /** Origin(s) of the dashboard, allowed by CORS. */
  webOrigin: string;
  /** Mark the session cookie Secure (set when served over HTTPS). */
  secureCookies: boolean;
  /** Requests per minute and IP on signup/login. */
  authRateLimit: number;
  /** Ingestion requests per minute and IP. */
  ingestRateLimit: number;
  /** An external run without ingestion for this long is listed as `crashed` until its next ingestion. */
  externalStaleMs: number;
  /** An environment preview whose generation runs longer is ended with 422. */
  previewTimeoutMs: number;
  shutdownMs: number;
  dbQueryTimeoutMs: number;
  dbConnectTimeoutMs: number;
  /** Connections in the API's pool. */
  dbPoolSize: number;
  /** A worker without a heartbeat for this long is `lost`, and its run is swept. */
  workerStaleMs: number;
  workerSweepMs: number;
}

/** The API's settings from `env`; throws a SettingsError naming each bad variable. */
export function loadApiSettings(env: Record<string, string | undefined> = process.env): ApiSettings {
  const s = apiEnv.parse(env);
  const { staleMs, sweepMs } = sweepTimings(s);
  return Object.freeze({
    databaseUrl: s.DATABASE_URL,
    port: s.API_PORT,
    host: s.API_HOST,
    webOrigin: s.WEB_ORIGIN,
    secureCookies: s.SECURE_COOKIES,
    authRateLimit: s.AUTH_RATE_LIMIT,
    ingestRateLimit: s.INGEST_RATE_LIMIT,
    externalStaleMs: s.EXTERNAL_STALE_MS,
    previewTimeoutMs: s.PREVIEW_TIMEOUT_MS,
    shutdownMs: s.API_SHUTDOWN_MS,
    dbQueryTimeoutMs: s.DB_QUERY_TIMEOUT_MS,
    dbConnectTimeoutMs: s.DB_CONNECT_TIMEOUT_MS,
    dbPoolSize: s.DB_POOL_SIZE,
    workerStaleMs: staleMs,
    workerSweepMs: sweepMs,
  });
}

/** What a caller of createApp gives (the tests: a database and an origin); the rest comes from the environment. */
export type ApiSettingsInput = Partial<ApiSettings> & Pick<ApiSettings, 'databaseUrl'>;

/** `given` on top of the environment's settings (createApp's: main.ts gives them all, a test a few). */
export function resolveApiSettings(given: ApiSettingsInput, env: Record<string, string | undefined> = process.env): ApiSettings {
  return Object.freeze({ ...loadApiSettings({ ...env, DATABASE_URL: given.databaseUrl }), ...given });
}
