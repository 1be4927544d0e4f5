// The environment variables the dashboard's server reads (next.config.mjs checks them at start-up;
// lib/api-base.ts reads them per request). JavaScript, so next.config.mjs can import it as it is.
import { defineSettings, describedDefault, envVar } from '@starpo/contracts';

export const webEnv = defineSettings({
  PUBLIC_API_URL: describedDefault(
    envVar.url({ description: "the API's URL as browsers reach it, read per request (one build serves any deployment)" }),
    'API_URL',
  ),
  API_URL: envVar.url({ default: 'http://127.0.0.1:3001', description: "the API's URL when PUBLIC_API_URL is unset (npm start sets it)" }),
  NODE_ENV: describedDefault(
    envVar.oneOf(['development', 'production', 'test'], {
      description: "set by Next.js; in development the Content-Security-Policy allows eval (Next's fast refresh)",
    }),
    'set by Next.js',
  ),
});

/** The dashboard server's settings from `env`; throws a SettingsError naming each bad variable. */
export function loadWebSettings(env = process.env) {
  const s = webEnv.parse(env);
  // `next dev` sets development; a built dashboard runs as production, or as test under the test runner
  return Object.freeze({ apiUrl: s.PUBLIC_API_URL ?? s.API_URL, dev: s.NODE_ENV === 'development' });
}

let current = null;

/** This server's settings, read from process.env on first use. */
export function webSettings() {
  return (current ??= loadWebSettings());
}
