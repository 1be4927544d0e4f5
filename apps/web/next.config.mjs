import { settingsOrExit } from '@starpo/contracts';
import { loadWebSettings } from './settings.mjs';

// the environment is checked as the server starts: a bad value stops it with a line naming it
const { dev } = settingsOrExit('web', loadWebSettings);

/**
 * Content Security Policy of every page. Next.js inlines its bootstrap scripts, so scripts may be
 * inline but only from this origin (no third-party script can load). The API's URL is chosen at
 * run time (PUBLIC_API_URL) while these headers are fixed at build time, so fetch and socket.io
 * may reach any http(s)/ws(s) origin; the API itself only answers the dashboard's origin (CORS and
 * its CSRF rule). No page may be framed (clickjacking).
 */
const csp = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ''}`,
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

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ['@starpo/envs', '@starpo/contracts'],
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'Content-Security-Policy', value: csp },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
        ],
      },
    ];
  },
};
export default nextConfig;
