/** Points per series the charts ask for: the server downsamples longer ones (first/last/min/max per bucket). */
export const COMPARE_METRICS_POINTS = 600;

/** The run ids of `?runs=a,b,…`, in order, without blanks. */
export function compareIds(runs: string | null): string[] {
  return (runs ?? '').split(',').filter(Boolean);
}
