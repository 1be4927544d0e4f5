const DOWN =
  /ECONNREFUSED|ECONNRESET|EPIPE|socket has been ended|Can't reach database|DatabaseNotReachable|Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|canceling statement due to statement timeout|Unable to start a transaction in the given time|terminating connection|is not queryable|the database system is (starting up|shutting down|not yet accepting connections|in recovery mode)|Code: `57P0[123]`/i;

/**
 * A connection-level failure (the database is away), as opposed to a query error. After a server
 * crash, node-postgres answers a client whose connection broke with "... is not queryable" (Prisma's
 * ROLLBACK of a broken transaction reports that instead of the original error); 57P02 is a backend
 * ended because another one crashed; EPIPE is a write on a pooled connection the server closed
 * while it was down.
 */
export function isConnectionError(e: unknown, depth = 0): boolean {
  const x = e as { code?: string; message?: string; cause?: unknown };
  if (['P1001', 'P1002', 'P1017', 'P2028', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', '57P01', '57P02', '57P03'].includes(x?.code ?? ''))
    return true;
  if (DOWN.test(String(x?.message ?? ''))) return true;
  return depth < 5 && x?.cause !== undefined && isConnectionError(x.cause, depth + 1);
}

/** pg-pool's answer when every connection stayed checked out for its whole wait (connectionTimeoutMillis). */
const POOL_WAIT = /timeout exceeded when trying to connect/i;

/**
 * The pool had no free connection within its wait: the server is busy, not the database away (a
 * connection that cannot be opened fails otherwise: refused, or "Connection terminated due to
 * connection timeout"). Still an isConnectionError, so retrying callers wait it out.
 */
export function isPoolBusy(e: unknown, depth = 0): boolean {
  const x = e as { message?: string; cause?: unknown };
  if (POOL_WAIT.test(String(x?.message ?? ''))) return true;
  return depth < 5 && x?.cause !== undefined && isPoolBusy(x.cause, depth + 1);
}

/**
 * Run `fn`, retrying with exponential backoff while the database is unreachable (other errors
 * are thrown at once). Gives up after `maxMs`.
 */
export async function retryWhileDown<T>(
  fn: () => Promise<T>,
  opts: { maxMs?: number; onRetry?: (e: Error, waitMs: number) => void } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.maxMs ?? 10 * 60_000);
  let wait = 250;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (!isConnectionError(e) || Date.now() + wait > deadline) throw e;
      opts.onRetry?.(e as Error, wait);
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 10_000);
    }
  }
}
