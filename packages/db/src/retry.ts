/**
 * Run `fn` up to `attempts` times while the error it throws passes `retryIf`, waiting `delayMs(attempt)`
 * (and running `beforeRetry`) between tries. The last error is thrown.
 */
export async function retryAttempts<T>(
  fn: () => Promise<T>,
  opts: { attempts: number; delayMs: (attempt: number) => number; retryIf?: (e: unknown) => boolean; beforeRetry?: () => Promise<void> },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= opts.attempts || !(opts.retryIf?.(e) ?? true)) throw e;
      await opts.beforeRetry?.();
      await new Promise((r) => setTimeout(r, opts.delayMs(attempt)));
    }
  }
}
