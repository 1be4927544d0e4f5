import { ROUTES } from '@starpo/contracts';
import { routeUrl } from './client';
/** Points per series the charts ask for: the server downsamples longer ones (first/last/min/max per bucket). */
const COMPARE_METRICS_POINTS = 600;

/**
 * The charts' one request for every series of these runs, downsampled, as parallel arrays (the
 * smaller answer). The compare page's HTML starts this same request before the scripts load.
 */
export const chartMetricsQuery = (ids: string) => ({ runs: ids, maxPoints: COMPARE_METRICS_POINTS, format: 'columns' as const });

/** The same request's path, for the page's HTML to start it early (components/Prefetch.tsx). */
export function chartMetricsPath(ids: string): string {
  return routeUrl(ROUTES.metrics, { query: chartMetricsQuery(ids) });
}

/** The run ids of `?runs=a,b,…`, in order, without blanks. */
export function compareIds(runs: string | null): string[] {
  return (runs ?? '').split(',').filter(Boolean);
}
