'use client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { Socket } from 'socket.io-client';
import { whenIdle } from './idle';

import { ApiError, request, type Api } from './client';

export { ApiError };

interface ApiContext {
  base: string;
  /** A call through a route's contract (lib/client.ts); lib/queries.ts is its only user. */
  api: Api;
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
  const api = useCallback<Api>((route, input) => request(base, route, input), [base]);
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
      <Ctx.Provider value={{ base, api, socket }}>{children}</Ctx.Provider>
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
