export const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(100 * x).toFixed(1)}%`);

export function duration(from: string | null, to: string | null): string {
  if (!from) return '—';
  const s = Math.max(0, ((to ? Date.parse(to) : Date.now()) - Date.parse(from)) / 1000);
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** "preset / estimator" for our runs; an external run shows what its trainer named, or "external". */
export const algorithmLabel = (r: { kind: string; preset: string | null; algorithm: string }) =>
  r.kind === 'external' ? r.algorithm : `${r.preset ?? 'custom'} / ${r.algorithm}`;
