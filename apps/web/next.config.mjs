import { settingsOrExit } from '@starpo/contracts';
import { loadWebSettings } from './settings.mjs';

// the environment is checked as the server starts: a bad value stops it with a line naming it
settingsOrExit('web', loadWebSettings);

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ['@starpo/envs', '@starpo/contracts'],
  // the Content-Security-Policy carries a nonce per request: proxy.ts sets it
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
        ],
      },
    ];
  },
};
export default nextConfig;
