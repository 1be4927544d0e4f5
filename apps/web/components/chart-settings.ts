'use client';
import { useCallback, useEffect, useState } from 'react';
import { useApi } from '../lib/api';

/** How the charts are drawn: kept per user (localStorage) and in the URL, so a reload or a shared link keeps them. */
export interface ChartSettings {
  smoothing: number;
  x: 'step' | 'time';
  log: boolean;
  /** Metric keys charted with "+ chart". */
  added: string[];
}

const DEFAULTS: ChartSettings = { smoothing: 0.6, x: 'step', log: false, added: [] };

/** Whatever was stored or typed into the URL, made into valid settings (bad parts fall back to the defaults). */
function clean(raw: Record<string, unknown>): ChartSettings {
  const smoothing = Number(raw.smoothing);
  return {
    smoothing: Number.isFinite(smoothing) ? Math.min(0.99, Math.max(0, smoothing)) : DEFAULTS.smoothing,
    x: raw.x === 'time' ? 'time' : 'step',
    log: raw.log === true || raw.log === '1',
    added: Array.isArray(raw.added) ? raw.added.filter((k): k is string => typeof k === 'string' && k.length <= 200).slice(0, 50) : [],
  };
}

export function useChartSettings(): [ChartSettings, (patch: Partial<ChartSettings>) => void] {
  const { me } = useApi();
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
    setSettings(clean({ ...DEFAULTS, ...saved, ...fromUrl })); // a link's settings win over the saved ones
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
    window.history.replaceState(window.history.state, '', url);
  }, [key, loaded, settings]);

  const update = useCallback((patch: Partial<ChartSettings>) => setSettings((s) => ({ ...s, ...patch })), []);
  return [settings, update];
}
