import { settingsOrExit } from '@starpo/contracts';
import { createApp } from './bootstrap.js';
import { loadApiSettings } from './settings.js';

// the environment is checked before anything starts: a bad value stops the API with a line naming it
const settings = settingsOrExit('api', () => loadApiSettings());
const { host, port, shutdownMs } = settings;
const app = await createApp(settings);
await app.listen(port, host);
console.log(`api listening on http://${host}:${port}`);
// enableShutdownHooks drains on SIGTERM/SIGINT (no new connections, sockets closed, pools ended); this bounds it.
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    console.log(`api: ${signal}, draining (at most ${shutdownMs} ms)`);
    setTimeout(() => {
      console.error(`api: drain took longer than ${shutdownMs} ms; exiting`);
      process.exit(1);
    }, shutdownMs).unref();
  });
