import { webSettings } from '../settings.mjs';

/** The API's base URL, on the server (PUBLIC_API_URL, else API_URL: see settings.mjs), so one build serves any deployment. */
export function apiBase(): string {
  return webSettings().apiUrl;
}
