import { NextResponse, type NextRequest } from 'next/server';
import { webSettings } from './settings.mjs';

/**
 * Content Security Policy of every page, with a nonce of its own per request. Scripts load only from
 * this origin, and an inline one runs only with the nonce: Next.js puts it on its own scripts (it
 * reads it from the request's policy) and components/Prefetch.tsx on its prefetch. Nonces need every
 * page rendered per request, which the dashboard does anyway (app/layout.tsx). The API's URL is chosen
 * at run time (PUBLIC_API_URL), so fetch and socket.io may reach any http(s)/ws(s) origin; the API
 * itself only answers the dashboard's origin (CORS and its CSRF rule). No page may be framed.
 */
function contentSecurityPolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self' http: https: ws: wss:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function proxy(request: NextRequest): NextResponse {
  const nonce = Buffer.from(crypto.randomUUID()).toString('base64');
  const csp = contentSecurityPolicy(nonce, webSettings().dev);
  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  headers.set('Content-Security-Policy', csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', csp);
  return response;
}

// pages only: not the build's static files, nor the router's prefetches (no document, no script runs from them)
export const config = {
  matcher: [
    {
      source: '/((?!_next/static|_next/image|icon.svg).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
