'use client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { Socket } from 'socket.io-client';
import { whenIdle } from './idle';
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

/** One request to the API; lib/queries.ts is its only user. */
export type Call = <T>(method: string, path: string, body?: unknown) => Promise<T>;

interface ApiContext {
  base: string;
  call: Call;
  /** The shared live socket; socket.io's client is loaded on first use, so no page waits for it. */
  socket: () => Promise<Socket>;
}

const Ctx = createContext<ApiContext | null>(null);
let shared: Promise<Socket> | null = null;

/**
 * Queries fail at once (a 404 page says so without waiting on retries) and are not refetched on
 * window focus: the pages that change poll on their own interval (lib/queries.ts).
 */
function newQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
}

/**
 * The app's one API context and query cache. The API's base URL comes from the server at request time
 * (PUBLIC_API_URL), so one build serves any deployment.
 */
export function ApiProvider({ base, children }: { base: string; children: ReactNode }) {
  const [client] = useState(newQueryClient);
  const call = useCallback(
    async <T,>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await ((method === 'GET' ? takePrefetched(path) : undefined) ??
        fetch(base + path, {
          method,
          credentials: 'include',
          headers: body !== undefined ? { 'content-type': 'application/json' } : {},
          body: body !== undefined ? JSON.stringify(body) : undefined,
        }));
      if (res.status === 204) return undefined as T;
      const text = await res.text();
      const data = text ? (JSON.parse(text) as unknown) : null;
      if (!res.ok) {
        const e = (data ?? {}) as { error?: string; message?: string; details?: { path: string; message: string }[] };
        throw new ApiError(res.status, e.error ?? `http_${res.status}`, e.message ?? res.statusText, e.details);
      }
      return data as T;
    },
    [base],
  );
  useEffect(() => {
    performance.mark('app:hydrated'); // for the load's timeline (bench:web prints it)
  }, []);
  const socket = useCallback(
    () =>
      (shared ??= import('socket.io-client').then(({ io }) => io(base, { withCredentials: true, transports: ['websocket', 'polling'] }))),
    [base],
  );
  return (
    <QueryClientProvider client={client}>
      <Ctx.Provider value={{ base, call, socket }}>{children}</Ctx.Provider>
    </QueryClientProvider>
  );
}

/**
 * Attaches handlers to the shared live socket once it is there and returns what detaches them (an
 * effect's cleanup), whether or not it had arrived. With `idle`, the socket is asked for only once the
 * page is idle: opening the connection then stays out of a page's first data and drawing.
 */
export function attachSocket(socket: () => Promise<Socket>, attach: (s: Socket) => () => void, opts: { idle?: boolean } = {}): () => void {
  let detach: (() => void) | undefined;
  let stopped = false;
  const start = () =>
    void socket().then((s) => {
      if (!stopped) detach = attach(s);
    });
  let cancel = () => {};
  if (opts.idle) cancel = whenIdle(start);
  else start();
  return () => {
    stopped = true;
    cancel();
    detach?.();
  };
}

export function useApi(): ApiContext {
  const c = useContext(Ctx);
  if (!c) throw new Error('useApi outside ApiProvider');
  return c;
}
