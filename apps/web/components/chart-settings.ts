'use client';
import { useCallback, useEffect, useState } from 'react';
import { useMe } from '../lib/queries';

/** How the charts are drawn: kept per user (localStorage) and in the URL, so a reload or a shared link keeps them. */
export interface ChartSettings {
  smoothing: number;
  x: 'step' | 'time';
  log: boolean;
  /** Metric keys charted with "+ chart". */
  added: string[];
  /** Series labels hidden by a click on their legend entry (hidden on every chart that has them). */
  hidden: string[];
  /** Charts a row: 0 fits as many as the width allows. */
  columns: 0 | 1 | 2 | 3;
}

const DEFAULTS: ChartSettings = { smoothing: 0.6, x: 'step', log: false, added: [], hidden: [], columns: 0 };
const strings = (v: unknown, max: number): string[] =>
  Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string' && k.length <= 200).slice(0, max) : [];

/** Whatever was stored or typed into the URL, made into valid settings (bad parts fall back to the defaults). */
function clean(raw: Record<string, unknown>): ChartSettings {
  const smoothing = Number(raw.smoothing);
  return {
    smoothing: Number.isFinite(smoothing) ? Math.min(0.99, Math.max(0, smoothing)) : DEFAULTS.smoothing,
    x: raw.x === 'time' ? 'time' : 'step',
    log: raw.log === true || raw.log === '1',
    added: strings(raw.added, 50),
    hidden: strings(raw.hidden, 200),
    columns: ([1, 2, 3] as const).find((n) => n === Number(raw.columns)) ?? 0,
  };
}

export function useChartSettings(): [ChartSettings, (patch: Partial<ChartSettings>) => void] {
  const me = useMe();
  const key = me ? `starpo:charts:${me.user.id}` : null;
  const [settings, setSettings] = useState<ChartSettings>(DEFAULTS);
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    if (!key) return;
    let saved: Record<string, unknown> = {};
    try {
      saved = JSON.parse(localStorage.getItem(key) ?? '{}') as Record<string, unknown>;
    } catch {
      // unreadable: start from the defaults
    }
    const q = new URLSearchParams(window.location.search);
    const fromUrl: Record<string, unknown> = {};
    if (q.has('smoothing')) fromUrl.smoothing = q.get('smoothing');
    if (q.has('x')) fromUrl.x = q.get('x');
    if (q.has('log')) fromUrl.log = q.get('log');
    if (q.has('charts')) fromUrl.added = q.get('charts')!.split(',').filter(Boolean);
    // a link written by this page (it always has smoothing) says all: no `hide` means none hidden;
    // one `hide` parameter a series, since labels may hold commas (a run's name)
    if (q.has('hide') || q.has('smoothing')) fromUrl.hidden = q.getAll('hide').filter(Boolean);
    if (q.has('columns') || q.has('smoothing')) fromUrl.columns = q.get('columns') ?? 0;
    const next = clean({ ...DEFAULTS, ...saved, ...fromUrl }); // a link's settings win over the saved ones
    // unchanged settings keep their identity: new (equal) arrays would rebuild every chart's series
    setSettings((prev) => (JSON.stringify(prev) === JSON.stringify(next) ? prev : next));
    setLoaded(true);
  }, [key]);

  useEffect(() => {
    if (!key || !loaded) return;
    localStorage.setItem(key, JSON.stringify(settings));
    const url = new URL(window.location.href);
    url.searchParams.set('smoothing', String(settings.smoothing));
    url.searchParams.set('x', settings.x);
    url.searchParams.set('log', settings.log ? '1' : '0');
    if (settings.added.length) url.searchParams.set('charts', settings.added.join(','));
    else url.searchParams.delete('charts');
    url.searchParams.delete('hide');
    for (const label of settings.hidden) url.searchParams.append('hide', label);
    if (settings.columns) url.searchParams.set('columns', String(settings.columns));
    else url.searchParams.delete('columns');
    window.history.replaceState(window.history.state, '', url);
  }, [key, loaded, settings]);

  const update = useCallback((patch: Partial<ChartSettings>) => setSettings((s) => ({ ...s, ...patch })), []);
  return [settings, update];
}
