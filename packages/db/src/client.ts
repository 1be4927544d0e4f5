import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';
import { dbSettings } from './settings.js';

export type Db = PrismaClient;

export interface DbOptions {
  /** Pool size (default 10). */
  max?: number;
  /**
   * Give up opening a connection after this long (default DB_CONNECT_TIMEOUT_MS, see settings.ts: a worker's
   * event loop only turns between tensor ops, so a handshake there can take seconds; the API passes 2 s).
   */
  connectTimeoutMs?: number;
  /**
   * Fail a query after this long, on the client (a frozen server never answers) and on the server
   * (statement_timeout). Default DB_QUERY_TIMEOUT_MS (settings.ts); the API passes a few seconds.
   */
  queryTimeoutMs?: number;
  /** The server ends a session idle inside a transaction this long (default DB_IDLE_TX_TIMEOUT_MS, settings.ts). */
  idleInTransactionMs?: number;
}

/** A Prisma client over node-postgres (no Rust engine, works offline), with connection and query timeouts. */
export function createDb(databaseUrl: string, opts: DbOptions = {}): Db {
  const queryTimeout = opts.queryTimeoutMs ?? dbSettings().queryTimeoutMs;
  // Prisma runs over a pool of our own, so the ingestion hot paths can send their array statements
  // to the same connections without Prisma's per-argument conversion (a third of their time).
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? dbSettings().connectTimeoutMs,
    query_timeout: queryTimeout,
    statement_timeout: queryTimeout,
    // a client frozen inside a transaction (SIGSTOP) must not hold its locks, the run row's among
    // them, forever: the server ends such a session, so a sweep can requeue the run
    idle_in_transaction_session_timeout: opts.idleInTransactionMs ?? dbSettings().idleInTransactionMs,
    // a connection that breaks while idle (server restarted) is noticed and dropped
    keepAlive: true,
  });
  // an idle connection the server dropped is discarded by the pool; the next query opens another
  pool.on('error', () => {});
  // A checked-out connection the server ends between two queries (a transaction left idle past
  // idle_in_transaction_session_timeout while its process was frozen) reports it as an 'error'
  // event, which would end the process without a listener; its next query fails instead (a
  // connection error, which callers retry on a fresh connection), and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  urls.set(db, databaseUrl);
  return db;
}

/**
 * A small pool of its own for health checks: whether the database answers must stay known while
 * every connection of the main pool is busy serving requests (a busy pool is no database outage).
 */
export function createProbe(databaseUrl: string, opts: Pick<DbOptions, 'connectTimeoutMs' | 'queryTimeoutMs'> = {}): pg.Pool {
  const timeout = opts.queryTimeoutMs ?? dbSettings().queryTimeoutMs;
  const probe = new pg.Pool({
    connectionString: databaseUrl,
    max: 2,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? dbSettings().connectTimeoutMs,
    query_timeout: timeout,
    statement_timeout: timeout,
    keepAlive: true,
  });
  probe.on('error', () => {});
  return probe;
}

const urls = new WeakMap<Db, string>();
const pools = new WeakMap<Db, pg.Pool>();

/** The node-postgres pool under a client made by createDb (the same connections Prisma uses). */
export function poolOf(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('not a client made by createDb');
  return pool;
}

/** The URL a client was made with (createDb), for a connection of another thread's own. */
export function databaseUrlOf(db: Db): string | undefined {
  return urls.get(db);
}
