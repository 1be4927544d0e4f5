import type { NextFunction, Request, Response } from 'express';
import type { ErrorBody } from '../errors.filter.js';

/** Environment previews one address may ask for per minute (429 past it). */
export const PREVIEWS_PER_MINUTE = 120;
const WINDOW_MS = 60_000;

const REFUSAL = JSON.stringify({
  error: 'too_many_requests',
  message: `more than ${PREVIEWS_PER_MINUTE} environment previews a minute from this address; retry shortly`,
  details: [],
} satisfies ErrorBody);

/**
 * The public preview route's budget per address, checked first of all (before helmet, cookies and
 * Nest's guards): a flood of previews is refused for a few microseconds each, so it cannot slow the
 * requests of everyone else. A fixed one-minute window per address, in memory.
 */
export function previewRateLimit(): (req: Request, res: Response, next: NextFunction) => void {
  const windows = new Map<string, { count: number; endsAt: number }>();
  return (req, res, next) => {
    if (req.method !== 'GET' || !/^\/api\/envs\/[^/]+\/preview$/.test(req.path)) return next();
    const now = Date.now();
    const address = req.socket.remoteAddress ?? '';
    let w = windows.get(address);
    if (!w || w.endsAt <= now) {
      if (windows.size > 10_000) for (const [a, x] of windows) if (x.endsAt <= now) windows.delete(a);
      w = { count: 0, endsAt: now + WINDOW_MS };
      windows.set(address, w);
    }
    if (++w.count <= PREVIEWS_PER_MINUTE) return next();
    res.writeHead(429, { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': String(Math.ceil((w.endsAt - now) / 1000)) });
    res.end(REFUSAL);
  };
}
