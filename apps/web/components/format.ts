export const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(100 * x).toFixed(1)}%`);

export function duration(from: string | null, to: string | null): string {
  if (!from) return '—';
  const s = Math.max(0, ((to ? Date.parse(to) : Date.now()) - Date.parse(from)) / 1000);
  // round once, then split, so 119.6 s reads "2 min 0 s" and never "1 min 60 s"
  const secs = Math.round(s);
  if (secs < 60) return `${secs} s`;
  if (secs < 3600) return `${Math.floor(secs / 60)} min ${secs % 60} s`;
  const mins = Math.round(s / 60);
  return `${Math.floor(mins / 60)} h ${mins % 60} min`;
}

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** "preset / estimator" for our runs; an external run shows what its trainer named, or "external". */
export const algorithmLabel = (r: { kind: string; preset: string | null; algorithm: string }) =>
  r.kind === 'external' ? r.algorithm : `${r.preset ?? 'custom'} / ${r.algorithm}`;
