/** The window property where responses started by the HTML (components/Prefetch.tsx) wait, by API path. */
export const PREFETCH_GLOBAL = '__starpoPrefetch';

/** The response the page's HTML already requested for `path`, once: a later call fetches anew. */
export function takePrefetched(path: string): Promise<Response> | undefined {
  if (typeof window === 'undefined') return undefined;
  const waiting = (window as unknown as Record<string, Record<string, Promise<Response>> | undefined>)[PREFETCH_GLOBAL];
  const res = waiting?.[path];
  if (res) delete waiting[path];
  return res;
}
