import type { IncomingMessage } from 'node:http';

/**
 * The CSRF rule shared by REST and socket.io: a browser request that carries the session cookie
 * must come from the dashboard's origin (WEB_ORIGIN) or the API's own. Browsers always send
 * `Origin` on cross-origin writes and WebSocket handshakes; a request with neither `Origin` nor a
 * cross-site `Sec-Fetch-Site` comes from a script (curl, SDK), which no other site can make send
 * the user's cookie.
 */
export function originRefusal(req: IncomingMessage, allowed: readonly string[]): string | null {
  const origin = header(req, 'origin');
  if (origin !== undefined) {
    if (allowed.includes(origin) || origin === ownOrigin(req)) return null;
    return `requests from ${origin} are refused: only ${allowed.join(', ')} may use the session cookie`;
  }
  const site = header(req, 'sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') return `a ${site} request without an Origin header is refused`;
  return null;
}

/** `WEB_ORIGIN` may list several origins, comma-separated. */
export function parseOrigins(webOrigin: string): string[] {
  return webOrigin
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
}

function ownOrigin(req: IncomingMessage): string | undefined {
  const host = header(req, 'host');
  if (!host) return undefined;
  const tls = (req.socket as { encrypted?: boolean }).encrypted === true || header(req, 'x-forwarded-proto') === 'https';
  return `${tls ? 'https' : 'http'}://${host}`;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
