// The environment variables `npm start` (scripts/start.mjs) reads itself; every other variable is
// passed on to the processes it starts, which check their own (apps/*/src/settings.ts).
import { defineSettings, describedDefault, envVar } from '@starpo/contracts';
import { EMBEDDED_PG_PORT } from '@starpo/db';
import { DEFAULT_API_PORT } from '../apps/api/dist/settings.js';
import { workerEnv } from '../apps/worker/dist/settings.js';

export const startEnv = defineSettings({
  DATABASE_URL: describedDefault(
    envVar.postgresUrl({ description: 'use this PostgreSQL server instead of starting the embedded one' }),
    'the embedded PostgreSQL',
  ),
  STARPO_DATA_DIR: envVar.text({
    default: '.data/postgres',
    description: "the embedded PostgreSQL's data folder (relative to the repository)",
  }),
  // 0 for any free port (the tests start several systems side by side)
  STARPO_PG_PORT: envVar.port({
    default: EMBEDDED_PG_PORT,
    anyFree: true,
    description: "the embedded PostgreSQL's port; a busy one is replaced by a free one",
  }),
  API_PORT: envVar.port({ default: DEFAULT_API_PORT, anyFree: true, description: "the API's port; a busy one is replaced by a free one" }),
  WEB_PORT: envVar.port({ default: 3000, anyFree: true, description: "the dashboard's port; a busy one is replaced by a free one" }),
  HOST: envVar.text({ default: '127.0.0.1', description: 'the address the API and the dashboard listen on' }),
  STARPO_QUIET: envVar.flag({ description: "print only the supervisor's lines (a process that dies still shows its last lines)" }),
  WORKER_SHUTDOWN_MS: {
    ...workerEnv.vars.WORKER_SHUTDOWN_MS,
    description: 'the worker drains within this on Ctrl-C; it is killed 5 s later',
  },
  STARPO_COMPUTE_THREADS: envVar.countOrAuto({
    default: 'auto',
    description: "the worker's compute threads (npm start lets a run use every core)",
  }),
});

/** `npm start`'s settings from `env`; throws a SettingsError naming each bad variable. */
export const loadStartSettings = (env = process.env) => startEnv.parse(env);
