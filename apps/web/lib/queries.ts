'use client';
/**
 * Every request the dashboard makes, in one place: the query keys, the functions that fetch (each
 * through a route's contract, `api(ROUTES.x, …)`, typed by it), the hooks pages use, the polling
 * intervals, the mutations and what each invalidates, and the live socket events that update the cache.
 * Pages and components never call the API themselves.
 */
import type {
  CreatedInvite,
  CreatedToken,
  Me,
  PresetName,
  MetricsEvent,
  RoleName,
  RunDetail,
  RunMetricColumns,
  RunMetricSeries,
  StatusEvent,
  SubscribeAck,
} from '@starpo/contracts';
import {
  keepPreviousData,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
  type UseQueryResult,
} from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { ROUTES, type BodyOf, type QueryOf, type ResponseOf, type RouteContract } from '@starpo/contracts';
import { ApiError, attachSocket, useApi } from './api';
import type { Api, RequestOf } from './client';
import { chartMetricsQuery } from './compare';
import { applyMetricEvents, lastStep } from './live-series';

/** How often the pages that show changing state ask again (the socket brings the rest). */
export const POLL_MS = { runs: 3000, run: 10_000, workers: 5000, envs: 2000 } as const;

/** Query keys: a run's own queries sit under ['run', id], so one invalidation reaches them all. */
export const queryKeys = {
  me: ['me'] as const,
  setup: ['auth', 'setup'] as const,
  runs: (query: string) => ['runs', query] as const,
  run: (id: string) => ['run', id] as const,
  runLogs: (id: string, warnings: string | null) => ['run', id, 'logs', warnings] as const,
  checkpoints: (id: string) => ['run', id, 'checkpoints'] as const,
  diagnostics: (id: string, query: string) => ['run', id, 'diagnostics', query] as const,
  trajectories: (id: string, query: string) => ['run', id, 'trajectories', query] as const,
  chartMetrics: (ids: string) => ['metrics', 'charts', ids] as const,
  sparklines: (ids: string, steps: string) => ['metrics', 'sparklines', ids, steps] as const,
  trajectory: (id: string) => ['trajectory', id] as const,
  verdicts: (trajectoryId: string) => ['trajectory', trajectoryId, 'verdicts'] as const,
  precision: ['verdicts', 'precision'] as const,
  workers: ['workers'] as const,
  members: ['team', 'members'] as const,
  invites: ['team', 'invites'] as const,
  tokens: ['tokens'] as const,
  baseModels: ['base-models'] as const,
  envs: ['envs'] as const,
  durationEstimate: (preset: string, base: string) => ['duration-estimate', preset, base] as const,
};

/** A list's URL parameters (`a=1&b=2`, as the page keeps them) as a route's query. */
const fromSearch = <R extends RouteContract>(search: string) => Object.fromEntries(new URLSearchParams(search)) as QueryOf<R>;

/**
 * Starts queries in the browser's first render of the component, not in the effect after it (where
 * useQuery starts them): what the first screen waits for (the charts' series, the runs' details) is
 * then asked for, or the HTML's prefetched answer read, sooner. Their useQuery must keep the answer
 * fresh until it subscribes (`staleTime`) and not ask again after an error (`retryOnMount`), or the
 * request would be made twice.
 */
function useStartEarly(queries: { queryKey: QueryKey; queryFn: () => Promise<unknown>; enabled: boolean }[]) {
  const client = useQueryClient();
  if (typeof window === 'undefined') return; // the server's render asks the API nothing
  for (const q of queries) if (q.enabled && !client.getQueryState(q.queryKey)) void client.prefetchQuery(q);
}

/** For a query useStartEarly started: fresh a while (polling and socket events still refresh it), not retried on mount. */
const EARLY = { staleTime: 10_000, retryOnMount: false } as const;

/** A GET route as a query (the key says what it is); `input` null skips it. */
function useGetQuery<R extends RouteContract>(
  key: QueryKey,
  route: R,
  input: RequestOf<R> | null,
  extra: { refetchInterval?: number; keepPrevious?: boolean; early?: boolean } = {},
) {
  const { api } = useApi();
  const options = { queryKey: key, queryFn: () => api(route, input!), enabled: input !== null };
  useStartEarly(extra.early ? [options] : []);
  return useQuery<ResponseOf<R>, ApiError>({
    ...options,
    ...(extra.early ? EARLY : {}),
    refetchInterval: extra.refetchInterval,
    placeholderData: extra.keepPrevious ? keepPreviousData : undefined,
  });
}

// ---- who is signed in

/** The signed-in user: undefined while asked, null when signed out (or the API is unreachable). */
export function useMe(): Me | null | undefined {
  const { api } = useApi();
  const q = useQuery<Me | null>({
    queryKey: queryKeys.me,
    // the session route answers 200 with null when signed out: an expected state, not a failed request
    queryFn: () =>
      api(ROUTES.session, {})
        .then((s) => s.me)
        .catch(() => null),
    staleTime: Infinity,
  });
  return q.data;
}

/** Asks who is signed in again, and drops every other cached answer (they were another session's). */
async function newSession(client: QueryClient): Promise<void> {
  await client.refetchQueries({ queryKey: queryKeys.me });
  client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'me' && !q.getObserversCount() });
  await client.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'me' });
}

/** Re-reads the signed-in user (after a role change of one's own). */
export function useRefreshMe(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(() => client.refetchQueries({ queryKey: queryKeys.me }), [client]);
}

export function useSetup(): UseQueryResult<{ needsSetup: boolean }, ApiError> {
  return useGetQuery(queryKeys.setup, ROUTES.authSetup, {});
}

/** Signs in (login) or creates an account (signup); either starts a new session. */
function useSession<R extends typeof ROUTES.login | typeof ROUTES.signup>(route: R) {
  const { api } = useApi();
  const client = useQueryClient();
  return useMutation<unknown, ApiError, BodyOf<R>>({
    mutationFn: (body) => api(route, { body } as RequestOf<R>),
    onSuccess: () => newSession(client),
  });
}

export const useLogin = () => useSession(ROUTES.login);
export const useSignup = () => useSession(ROUTES.signup);

export function useSignOut() {
  const { api } = useApi();
  const client = useQueryClient();
  return useMutation<void, ApiError, void>({
    mutationFn: () => api(ROUTES.logout, {}),
    onSettled: () => newSession(client),
  });
}

// ---- runs

/** A page of the runs list (`query`: the list's URL parameters), polled so status and progress stay current. */
export function useRuns(query: string | null, enabled = true) {
  return useGetQuery(queryKeys.runs(query ?? ''), ROUTES.runs, query !== null && enabled ? { query: fromSearch(query) } : null, {
    refetchInterval: POLL_MS.runs,
    keepPrevious: true,
  });
}

/** Validation success of these runs (comma-separated ids), 40 points each; asked again as their steps move. */
export function useSparklines(ids: string, steps: string): UseQueryResult<RunMetricSeries[], ApiError> {
  const input = ids ? { query: { runs: ids, keys: 'val/success', maxPoints: 40 } } : null;
  // without a format the answer is series of points
  return useGetQuery(queryKeys.sparklines(ids, steps), ROUTES.metrics, input, { keepPrevious: true }) as UseQueryResult<
    RunMetricSeries[],
    ApiError
  >;
}

/** One run's details; `poll` for its own page, where progress and heartbeat-driven changes show. */
export function useRun(id: string | null | undefined, opts: { poll?: boolean } = {}) {
  return useGetQuery(queryKeys.run(id ?? ''), ROUTES.run, id ? { params: { id } } : null, {
    refetchInterval: opts.poll ? POLL_MS.run : undefined,
    early: true,
  });
}

/** Several runs' details at once (the compare page): all of them, or an error, in the given order. */
export function useRunsById(ids: string[]): { data: RunDetail[]; error: ApiError | null } {
  const { api } = useApi();
  const queries = ids.map((id) => ({
    queryKey: queryKeys.run(id),
    queryFn: () => api(ROUTES.run, { params: { id } }),
    enabled: true,
  }));
  useStartEarly(queries);
  return useQueries({ queries: queries.map((q) => ({ ...q, ...EARLY })), combine: allOrError });
}

/** Stable (module scope): TanStack then reuses the combined result while the answers stay the same. */
function allOrError(results: UseQueryResult<RunDetail, Error>[]): { data: RunDetail[]; error: ApiError | null } {
  return {
    data: results.every((r) => r.data) ? results.map((r) => r.data!) : [],
    error: (results.find((r) => r.error)?.error as ApiError | undefined) ?? null,
  };
}

/**
 * Keeps a run's cached details current from the socket: a status event patches them at once and has
 * them fetched again (progress, warnings, the stop reason's details), along with the runs list.
 */
export function useLiveRunStatus(id: string): void {
  const { socket } = useApi();
  const client = useQueryClient();
  useEffect(() => {
    const onStatus = (ev: StatusEvent) => {
      if (ev.runId !== id) return;
      client.setQueryData<RunDetail>(queryKeys.run(id), (r) =>
        r
          ? {
              ...r,
              status: ev.status as RunDetail['status'],
              currentStep: ev.currentStep,
              totalSteps: ev.totalSteps,
              stopReason: ev.stopReason,
              cancelRequested: ev.cancelRequested,
            }
          : r,
      );
      void client.invalidateQueries({ queryKey: queryKeys.run(id), exact: true });
      void client.invalidateQueries({ queryKey: ['runs'] });
    };
    return attachSocket(socket, (s) => {
      s.on('status', onStatus);
      const sub = () => void s.emitWithAck('subscribe', { runId: id, afterStep: 1e9 }).catch(() => {});
      s.on('connect', sub);
      if (s.connected) sub();
      return () => {
        s.off('status', onStatus);
        s.off('connect', sub);
      };
    });
  }, [id, socket, client]);
}

/** After a change to a run: its details and every list it appears in are asked again. */
function invalidateRun(client: QueryClient, id: string) {
  return Promise.all([
    client.invalidateQueries({ queryKey: queryKeys.run(id), exact: true }),
    client.invalidateQueries({ queryKey: ['runs'] }),
  ]);
}

/** A POST to one of a run's actions (`cancel`, `resume`). */
function useRunAction(action: 'cancel' | 'resume') {
  const { api } = useApi();
  const client = useQueryClient();
  return useMutation<unknown, ApiError, string>({
    mutationFn: (id) => api(action === 'cancel' ? ROUTES.cancelRun : ROUTES.resumeRun, { params: { id } }),
    onSettled: (_d, _e, id) => invalidateRun(client, id),
  });
}

export const useCancelRun = () => useRunAction('cancel');
export const useResumeRun = () => useRunAction('resume');

export function useDeleteRun() {
  const { api } = useApi();
  const client = useQueryClient();
  return useMutation<void, ApiError, string>({
    mutationFn: (id) => api(ROUTES.deleteRun, { params: { id } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['runs'] }),
  });
}

export function useUpdateRun() {
  const { api } = useApi();
  const client = useQueryClient();
  return useMutation<RunDetail, ApiError, { id: string } & BodyOf<typeof ROUTES.updateRun>>({
    mutationFn: ({ id, ...body }) => api(ROUTES.updateRun, { params: { id }, body }),
    onSuccess: (_d, { id }) => invalidateRun(client, id),
  });
}

export function useCreateRun() {
  const { api } = useApi();
  const client = useQueryClient();
  return useMutation<RunDetail, ApiError, BodyOf<typeof ROUTES.createRun>>({
    mutationFn: (body) => api(ROUTES.createRun, { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['runs'] }),
  });
}

export function useBaseModels() {
  return useGetQuery(queryKeys.baseModels, ROUTES.baseModels, {});
}

/** The environments the API can train (built-in, then the team's registered ones), with their config schemas; `poll` while a registration waits for a worker. */
export function useEnvs(poll = false) {
  return useGetQuery(queryKeys.envs, ROUTES.envs, {}, poll ? { refetchInterval: POLL_MS.envs } : {});
}

export const useRegisterEnv = () =>
  useListMutation<BodyOf<typeof ROUTES.registerEnv>, ResponseOf<typeof ROUTES.registerEnv>>(
    (api, body) => api(ROUTES.registerEnv, { body }),
    queryKeys.envs,
  );
export const useDeleteEnv = () => useListMutation<string>((api, name) => api(ROUTES.deleteEnv, { params: { name } }), queryKeys.envs);

/** How long a run of the preset takes a token, measured where the deployment has measured it; null skips it (no preset). */
export function useDurationEstimate(preset: PresetName | null, base: string | undefined) {
  const input = preset ? { query: { preset, ...(base ? { base } : {}) } } : null;
  return useGetQuery(queryKeys.durationEstimate(preset ?? '', base ?? ''), ROUTES.durationEstimate, input);
}

// ---- a run's tabs

/** A run's log lines; `warnings` only those with a code, fetched again when the run's codes (`codes`) change. */
export function useRunLogs(id: string, opts: { warnings?: boolean; codes?: string } = {}) {
  const input = { params: { id }, query: opts.warnings ? { warnings: '1' as const } : {} };
  return useGetQuery(queryKeys.runLogs(id, opts.warnings ? (opts.codes ?? '') : null), ROUTES.logs, input);
}

export function useCheckpoints(id: string) {
  return useGetQuery(queryKeys.checkpoints(id), ROUTES.checkpoints, { params: { id } });
}

export function useDiagnostics(id: string, query: string) {
  return useGetQuery(
    queryKeys.diagnostics(id, query),
    ROUTES.diagnostics,
    { params: { id }, query: fromSearch(query) },
    { keepPrevious: true },
  );
}

export function useTrajectories(id: string, query: string) {
  return useGetQuery(
    queryKeys.trajectories(id, query),
    ROUTES.trajectories,
    { params: { id }, query: fromSearch(query) },
    {
      keepPrevious: true,
    },
  );
}

// ---- charts

/**
 * Every metric series of these runs (comma-separated ids), downsampled, then extended live from the
 * socket once `live` and loaded: each run is subscribed from the last step it has, so a reconnect's
 * catch-up is only what was missed; a catch-up too long to carry has the series fetched again.
 */
export function useChartMetrics(ids: string, live: boolean) {
  const { api, socket } = useApi();
  const client = useQueryClient();
  const key = queryKeys.chartMetrics(ids);
  const options = {
    queryKey: key,
    queryFn: async () => {
      // marks for the load's timeline (bench:web prints them)
      performance.mark('metrics:requested');
      // format=columns: the answer is the columns' shape
      const columns = (await api(ROUTES.metrics, { query: chartMetricsQuery(ids) })) as RunMetricColumns[];
      performance.mark('metrics:parsed');
      return columns;
    },
    enabled: !!ids,
  };
  useStartEarly([options]);
  const q = useQuery<RunMetricColumns[], ApiError>({
    ...options,
    ...EARLY,
    // the live points keep the series current; a catch-up too long to carry invalidates them
    staleTime: Infinity,
    // a live point replaces one series: comparing 10⁵ numbers deep to keep the others is wasted work
    structuralSharing: false,
  });
  const loaded = q.isSuccess;
  useEffect(() => {
    if (!live || !ids || !loaded) return;
    const key = queryKeys.chartMetrics(ids);
    const append = (events: MetricsEvent[]) =>
      client.setQueryData<RunMetricColumns[]>(key, (prev) => applyMetricEvents(prev ?? [], events, Date.now() / 1000));
    const wanted = new Set(ids.split(','));
    // the socket is shared: another run's points (a page subscribed to it too) are not these charts'
    const onMetrics = (ev: MetricsEvent) => void (wanted.has(ev.runId) && append([ev]));
    // subscribed once the page is idle, after the history's first drawing
    return attachSocket(
      socket,
      (s) => {
        let detached = false;
        const subscribeRun = (id: string): void =>
          void s
            .emitWithAck('subscribe', { runId: id, afterStep: lastStep(client.getQueryData(key), id) })
            .then((ack: SubscribeAck) => {
              if (detached) return;
              // more missed than a catch-up carries: the series are fetched again, then the rest is caught up from their end
              if (ack.truncated) void client.invalidateQueries({ queryKey: key }).then(() => !detached && subscribeRun(id));
              else if (ack.ok && ack.metrics?.length) append(ack.metrics);
            })
            .catch(() => {});
        const subscribe = () => wanted.forEach(subscribeRun);
        s.on('metrics', onMetrics);
        s.on('connect', subscribe);
        if (s.connected) subscribe();
        return () => {
          detached = true;
          s.off('metrics', onMetrics);
          s.off('connect', subscribe);
        };
      },
      { idle: true },
    );
  }, [ids, live, loaded, socket, client]);
  return q;
}

// ---- trajectories and verdicts

export function useTrajectory(id: string) {
  // the replay's first screen: its board is drawn from it
  return useGetQuery(queryKeys.trajectory(id), ROUTES.trajectory, { params: { id } }, { early: true });
}

export function useVerdicts(trajectoryId: string) {
  return useGetQuery(queryKeys.verdicts(trajectoryId), ROUTES.verdicts, { params: { id: trajectoryId } });
}

export function useTeamPrecision() {
  return useGetQuery(queryKeys.precision, ROUTES.verdictPrecision, {});
}

/** A verdict on a sentence of a turn; the trajectory's verdicts and the team's precision are asked again. */
export function useMarkVerdict(trajectoryId: string) {
  const { api } = useApi();
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { turn: number } & BodyOf<typeof ROUTES.markClaim>>({
    mutationFn: ({ turn, ...body }) => api(ROUTES.markClaim, { params: { id: trajectoryId, turn: String(turn) }, body }),
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.verdicts(trajectoryId) }),
        client.invalidateQueries({ queryKey: queryKeys.precision }),
      ]),
  });
}

// ---- workers

export function useWorkers() {
  return useGetQuery(queryKeys.workers, ROUTES.workers, {}, { refetchInterval: POLL_MS.workers });
}

// ---- team and tokens

export function useMembers(enabled = true) {
  return useGetQuery(queryKeys.members, ROUTES.members, enabled ? {} : null);
}

export function useSetMemberRole() {
  const { api } = useApi();
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { userId: string; role: RoleName; self: boolean }>({
    mutationFn: ({ userId, role }) => api(ROUTES.setRole, { params: { userId }, body: { role } }),
    onSettled: async (_d, _e, { self }) => {
      if (self) await client.refetchQueries({ queryKey: queryKeys.me });
      await client.invalidateQueries({ queryKey: queryKeys.members });
    },
  });
}

export function useInvites() {
  return useGetQuery(queryKeys.invites, ROUTES.invites, {});
}

/** A change to a list (invites, tokens): the list is asked again whether or not it worked. */
function useListMutation<V, R = void>(send: (api: Api, v: V) => Promise<R>, list: QueryKey) {
  const { api } = useApi();
  const client = useQueryClient();
  return useMutation<R, ApiError, V>({
    mutationFn: (v) => send(api, v),
    onSettled: () => client.invalidateQueries({ queryKey: list }),
  });
}

export const useCreateInvite = () =>
  useListMutation<BodyOf<typeof ROUTES.createInvite>, CreatedInvite>((api, body) => api(ROUTES.createInvite, { body }), queryKeys.invites);
export const useRevokeInvite = () => useListMutation<string>((api, id) => api(ROUTES.revokeInvite, { params: { id } }), queryKeys.invites);

export function useTokens(enabled = true) {
  return useGetQuery(queryKeys.tokens, ROUTES.tokens, enabled ? {} : null);
}

export const useCreateToken = () =>
  useListMutation<{ name: string }, CreatedToken>((api, body) => api(ROUTES.createToken, { body }), queryKeys.tokens);
export const useRevokeToken = () => useListMutation<string>((api, id) => api(ROUTES.revokeToken, { params: { id } }), queryKeys.tokens);
