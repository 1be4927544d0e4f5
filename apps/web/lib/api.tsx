'use client';
import type { Me } from '@starpo/contracts';
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { Socket } from 'socket.io-client';
import { whenIdle } from './idle';
import { takePrefetched } from './prefetch';

import { ApiError } from './client';

export { ApiError };

interface ApiContext {
  base: string;
  me: Me | null | undefined;
  refreshMe: () => Promise<void>;
  call: <T>(method: string, path: string, body?: unknown) => Promise<T>;
  /** The shared live socket; socket.io's client is loaded on first use, so no page waits for it. */
  socket: () => Promise<Socket>;
}

const Ctx = createContext<ApiContext | null>(null);
let shared: Promise<Socket> | null = null;

/** The API's base URL comes from the server at request time (PUBLIC_API_URL), so one build serves any deployment. */
export function ApiProvider({ base, children }: { base: string; children: ReactNode }) {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
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
  const refreshMe = useCallback(async () => {
    setMe(await call<Me>('GET', '/api/auth/me').catch(() => null));
  }, [call]);
  useEffect(() => {
    performance.mark('app:hydrated'); // for the load's timeline (bench:web prints it)
    void refreshMe();
  }, [refreshMe]);
  const socket = useCallback(
    () =>
      (shared ??= import('socket.io-client').then(({ io }) => io(base, { withCredentials: true, transports: ['websocket', 'polling'] }))),
    [base],
  );
  return <Ctx.Provider value={{ base, me, refreshMe, call, socket }}>{children}</Ctx.Provider>;
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

/** GET with loading/error state and a reload function; `path` null skips. */
export function useGet<T>(path: string | null, deps: unknown[] = []): { data: T | undefined; error: ApiError | null; reload: () => void } {
  const { call } = useApi();
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!path) return;
    let live = true;
    call<T>('GET', path)
      .then((d) => live && (setData(d), setError(null)))
      .catch((e: ApiError) => live && setError(e));
    return () => {
      live = false;
    };
  }, [path, call, tick, ...deps]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}
