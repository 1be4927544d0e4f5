'use client';
import type { MetricsEvent } from '@starpo/contracts';
import { useEffect, useMemo, useState } from 'react';
import { useApi } from '../lib/api';
import { Chart, type ChartSeries } from './Chart';
import { groupKeys } from './chart-groups';

type Point = { step: number; value: number; time: number };
type Series = { runId: string; key: string; points: Point[] };

/**
 * Every chart group for one or more runs: loaded downsampled from the API, then extended live
 * from the socket (each run subscribed with the last step it has, so a reconnect catches up).
 */
export function RunCharts({ runs, live = true, only }: { runs: { id: string; label: string }[]; live?: boolean; only?: RegExp }) {
  const { call, socket } = useApi();
  const [data, setData] = useState<Map<string, Point[]>>(new Map());
  const [smoothing, setSmoothing] = useState(0.6);
  const [xMode, setXMode] = useState<'step' | 'time'>('step');
  const [logScale, setLogScale] = useState(false);
  const [error, setError] = useState('');
  const ids = runs.map((r) => r.id).join(',');

  useEffect(() => {
    if (!ids) return;
    call<Series[]>('GET', `/api/metrics?runs=${ids}&maxPoints=600`)
      .then((series) => setData(new Map(series.map((s) => [`${s.runId} ${s.key}`, s.points]))))
      .catch((e: Error) => setError(e.message));
  }, [call, ids]);

  useEffect(() => {
    if (!live || !ids) return;
    const s = socket();
    const append = (ev: MetricsEvent) =>
      setData((prev) => {
        const next = new Map(prev);
        const t = Date.now() / 1000;
        for (const [key, value] of Object.entries(ev.values)) {
          const id = `${ev.runId} ${key}`;
          const pts = (next.get(id) ?? []).filter((p) => p.step !== ev.step);
          pts.push({ step: ev.step, value, time: t });
          pts.sort((a, b) => a.step - b.step);
          next.set(id, pts);
        }
        return next;
      });
    const subscribe = () => {
      for (const id of ids.split(',')) {
        let last = -1;
        for (const [k, pts] of data) if (k.startsWith(id)) last = Math.max(last, pts.at(-1)?.step ?? -1);
        s.emitWithAck('subscribe', { runId: id, afterStep: last })
          .then((ack: { ok: boolean; metrics?: MetricsEvent[] }) => ack.ok && ack.metrics?.forEach(append))
          .catch(() => {});
      }
    };
    s.on('metrics', append);
    s.on('connect', subscribe);
    if (s.connected) subscribe();
    return () => {
      s.off('metrics', append);
      s.off('connect', subscribe);
    };
  }, [ids, live, socket]);

  const keys = useMemo(
    () => [...new Set([...data.keys()].map((k) => k.slice(k.indexOf(' ') + 1)))].filter((k) => !only || only.test(k)),
    [data, only],
  );
  const groups = useMemo(() => groupKeys(keys), [keys]);
  const t0 = useMemo(() => {
    let min = Infinity; // a loop: spreading 10⁵ points into Math.min overflows the stack
    for (const pts of data.values()) for (const p of pts) if (p.time < min) min = p.time;
    return min;
  }, [data]);

  if (error) return <p className="error">{error}</p>;
  if (!groups.length) return <div className="panel empty">No metrics yet: charts appear with the first training step.</div>;
  return (
    <div>
      <div className="toolbar">
        <label>
          Smoothing {smoothing.toFixed(2)}
          <input
            type="range"
            min={0}
            max={0.99}
            step={0.01}
            value={smoothing}
            onChange={(e) => setSmoothing(Number(e.target.value))}
            aria-label="smoothing"
          />
        </label>
        <label>
          x-axis
          <select value={xMode} onChange={(e) => setXMode(e.target.value as 'step' | 'time')}>
            <option value="step">step</option>
            <option value="time">wall time (s)</option>
          </select>
        </label>
        <label>
          <input type="checkbox" checked={logScale} onChange={(e) => setLogScale(e.target.checked)} /> log scale
        </label>
      </div>
      <div className="charts">
        {groups.map((g) => {
          const series: ChartSeries[] = runs.flatMap((r) =>
            g.keys
              .filter((k) => data.has(`${r.id} ${k}`))
              .map((k) => ({
                label: runs.length > 1 ? `${r.label}: ${k}` : k,
                points: data.get(`${r.id} ${k}`)!.map((p) => [xMode === 'step' ? p.step : p.time - t0, p.value] as [number, number]),
              })),
          );
          return (
            <Chart
              key={g.title}
              title={g.title}
              series={series}
              smoothing={smoothing}
              log={logScale || g.log}
              xLabel={xMode === 'step' ? 'step' : 'seconds'}
              syncKey={`run-${ids}`}
            />
          );
        })}
      </div>
    </div>
  );
}
