/** The API's base URL, read per request on the server (PUBLIC_API_URL), so one build serves any deployment. */
export function apiBase(): string {
  return process.env.PUBLIC_API_URL ?? process.env.API_URL ?? 'http://127.0.0.1:3001';
}
