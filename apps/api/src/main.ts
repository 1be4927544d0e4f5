import { createApp } from './bootstrap.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required (npm start sets it for the embedded database)');
  process.exit(2);
}
const port = Number(process.env.API_PORT ?? process.env.PORT ?? 3001);
const host = process.env.API_HOST ?? '127.0.0.1';
const app = await createApp({
  databaseUrl,
  webOrigin: process.env.WEB_ORIGIN ?? 'http://127.0.0.1:3000',
  secureCookies: process.env.SECURE_COOKIES === '1',
  ...(process.env.INGEST_RATE_LIMIT ? { ingestRateLimit: Number(process.env.INGEST_RATE_LIMIT) } : {}),
  ...(process.env.EXTERNAL_STALE_MS ? { externalStaleMs: Number(process.env.EXTERNAL_STALE_MS) } : {}),
  ...(process.env.PREVIEW_TIMEOUT_MS ? { previewTimeoutMs: Number(process.env.PREVIEW_TIMEOUT_MS) } : {}),
  ...(process.env.AUTH_RATE_LIMIT ? { authRateLimit: Number(process.env.AUTH_RATE_LIMIT) } : {}),
});
await app.listen(port, host);
console.log(`api listening on http://${host}:${port}`);
// enableShutdownHooks drains on SIGTERM/SIGINT (no new connections, sockets closed, pools ended); this bounds it.
const shutdownMs = Number(process.env.API_SHUTDOWN_MS ?? 10_000);
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    console.log(`api: ${signal}, draining (at most ${shutdownMs} ms)`);
    setTimeout(() => {
      console.error(`api: drain took longer than ${shutdownMs} ms; exiting`);
      process.exit(1);
    }, shutdownMs).unref();
  });
