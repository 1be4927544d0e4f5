import { fillPath, type BodyOf, type PathParams, type QueryOf, type ResponseOf, type RouteContract } from '@starpo/contracts';
import { takePrefetched } from './prefetch';

/** An API error with the server's `{ error, message, details }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: { path: string; message: string }[],
  ) {
    super(message);
  }
}

type NoKeys<T> = keyof T extends never ? true : false;

/** What a call of route `R` takes: its path parameters, query and body, each only where the contract has one. */
export type RequestOf<R extends RouteContract> = (NoKeys<PathParams<R['path']>> extends true
  ? { params?: undefined }
  : { params: PathParams<R['path']> }) &
  (R['query'] extends object ? { query?: QueryOf<R> } : { query?: undefined }) &
  (R['body'] extends object ? { body: BodyOf<R> } : { body?: undefined });

/** `?a=1&keys=x,y`: arrays comma-joined (the API's list parameters, commas left readable), undefined and null left out. */
function queryString(query: object | undefined): string {
  const params: string[] = [];
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    params.push(`${encodeURIComponent(k)}=${encodeURIComponent(Array.isArray(v) ? v.join(',') : String(v)).replace(/%2C/g, ',')}`);
  }
  return params.length ? `?${params.join('&')}` : '';
}

/** The path and query of a call, as the server routes it (also the key of a prefetched response). */
export function routeUrl<R extends RouteContract>(route: R, input: RequestOf<R>): string {
  return fillPath(route.path, input.params as Record<string, string> | undefined) + queryString(input.query as object | undefined);
}

/** A call of any route, bound to the API's address (what ApiProvider hands to lib/queries.ts). */
export type Api = <R extends RouteContract>(route: R, input: RequestOf<R>) => Promise<ResponseOf<R>>;

/**
 * Calls the API through a route's contract: the path, method, body and answer's type all come from
 * it (packages/contracts/src/routes.ts), so a call cannot drift from the route it names.
 */
export async function request<R extends RouteContract>(base: string, route: R, input: RequestOf<R>): Promise<ResponseOf<R>> {
  const url = routeUrl(route, input);
  const body = input.body as unknown;
  const res = await ((route.method === 'GET' ? takePrefetched(url) : undefined) ??
    fetch(base + url, {
      method: route.method,
      credentials: 'include',
      headers: body !== undefined ? { 'content-type': 'application/json' } : {},
      body: body !== undefined ? JSON.stringify(body) : undefined,
    }));
  if (res.status === 204) return undefined as ResponseOf<R>;
  const text = await res.text();
  const data = text ? (JSON.parse(text) as unknown) : null;
  if (!res.ok) {
    const e = (data ?? {}) as { error?: string; message?: string; details?: { path: string; message: string }[] };
    throw new ApiError(res.status, e.error ?? `http_${res.status}`, e.message ?? res.statusText, e.details);
  }
  return data as ResponseOf<R>;
}
