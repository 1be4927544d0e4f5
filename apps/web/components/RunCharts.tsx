'use client';
import type { MetricsEvent, RunMetricColumns, SubscribeAck } from '@starpo/contracts';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { attachSocket, useApi } from '../lib/api';
import { chartMetricsPath } from '../lib/compare';
import { Chart, COLORS, type ChartSeries } from './Chart';
import { groupKeys } from './chart-groups';
import { useChartSettings } from './chart-settings';

/** Validation lines: dashed. */
const VAL_DASH = [6, 4];
/** A run's further training series on one compared chart: solid, dotted, dash-dot (its colour is the run's). */
const SERIES_DASHES: (number[] | undefined)[] = [undefined, [2, 3], [10, 3, 2, 3]];

/** One series as the API's parallel columns: charts read them as they are, with no object per point. */
type Columns = Pick<RunMetricColumns, 'steps' | 'values' | 'times'>;

/**
 * Every chart group for one or more runs: loaded downsampled from the API, then extended live
 * from the socket (each run subscribed with the last step it has, so a reconnect catches up).
 * `labelled` false: the runs' labels are not known yet (Compare, before the runs' details arrive). The data
 * load anyway; the charts wait, since a label is part of a chart's shape and a change rebuilds it.
 */
export function RunCharts({
  runs,
  live = true,
  only,
  labelled = true,
}: {
  runs: { id: string; label: string }[];
  live?: boolean;
  only?: RegExp;
  labelled?: boolean;
}) {
  const { call, socket, base } = useApi();
  const [data, setData] = useState<Map<string, Columns>>(new Map());
  const [loaded, setLoaded] = useState(false);
  const [reloads, setReloads] = useState(0);
  const latest = useRef(data);
  latest.current = data;
  const [settings, update] = useChartSettings();
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const { smoothing, x: xMode, log: logScale, added, hidden, columns } = settings;
  const [pick, setPick] = useState('');
  const [error, setError] = useState('');
  const ids = runs.map((r) => r.id).join(',');

  useEffect(() => {
    if (!ids) return;
    setLoaded(false);
    // marks for the load's timeline (bench:web prints them)
    performance.mark('metrics:requested');
    call<RunMetricColumns[]>('GET', chartMetricsPath(ids))
      .then((columns) => {
        performance.mark('metrics:parsed');
        setData(new Map(columns.map((c) => [`${c.runId} ${c.key}`, c])));
        setLoaded(true);
      })
      .catch((e: Error) => setError(e.message));
  }, [call, ids, reloads]);

  // Live: subscribe once the history is loaded, from the last step it has, so the catch-up is only
  // what was missed; a batch of events is applied in one state update.
  useEffect(() => {
    if (!live || !ids || !loaded) return;
    const append = (events: MetricsEvent[]) =>
      setData((prev) => {
        const next = new Map(prev);
        const copied = new Set<string>(); // each touched series is copied once a batch, then extended in place
        const own = (id: string): Columns => {
          const c = next.get(id) ?? { steps: [], values: [], times: [] };
          if (copied.has(id)) return c;
          copied.add(id);
          const mine = { steps: [...c.steps], values: [...c.values], times: [...c.times] };
          next.set(id, mine);
          return mine;
        };
        const t = Date.now() / 1000;
        for (const ev of events)
          for (const [key, value] of Object.entries(ev.values)) {
            const c = own(`${ev.runId} ${key}`);
            const last = c.steps.at(-1);
            if (last === undefined || last < ev.step) {
              c.steps.push(ev.step);
              c.values.push(value);
              c.times.push(t);
              continue;
            }
            // a re-written or late step: replaced, or inserted in step order
            const at = c.steps.findIndex((step) => step >= ev.step);
            if (c.steps[at] === ev.step) {
              c.values[at] = value;
              c.times[at] = t;
            } else {
              c.steps.splice(at, 0, ev.step);
              c.values.splice(at, 0, value);
              c.times.splice(at, 0, t);
            }
          }
        return next;
      });
    const onMetrics = (ev: MetricsEvent) => append([ev]);
    // subscribed once the page is idle, after the history's first drawing
    return attachSocket(
      socket,
      (s) => {
        const subscribe = () => {
          for (const id of ids.split(',')) {
            let last = -1;
            for (const [k, c] of latest.current) if (k.startsWith(id)) last = Math.max(last, c.steps.at(-1) ?? -1);
            s.emitWithAck('subscribe', { runId: id, afterStep: last })
              .then((ack: SubscribeAck) => {
                if (ack.truncated) setReloads((n) => n + 1);
                else if (ack.ok && ack.metrics?.length) append(ack.metrics);
              })
              .catch(() => {});
          }
        };
        s.on('metrics', onMetrics);
        s.on('connect', subscribe);
        if (s.connected) subscribe();
        return () => {
          s.off('metrics', onMetrics);
          s.off('connect', subscribe);
        };
      },
      { idle: true },
    );
  }, [ids, live, loaded, socket]);

  const allKeys = useMemo(() => [...new Set([...data.keys()].map((k) => k.slice(k.indexOf(' ') + 1)))].sort(), [data]);
  const keys = useMemo(() => allKeys.filter((k) => !only || only.test(k)), [allKeys, only]);
  const groups = useMemo((): { title: string; keys: string[]; log?: boolean; custom?: boolean }[] => {
    const g = groupKeys(keys);
    const charted = new Set(g.flatMap((x) => x.keys));
    // charts added with "+ chart", for any logged key, after the built-in ones
    return [...g, ...added.filter((k) => allKeys.includes(k) && !charted.has(k)).map((k) => ({ title: k, keys: [k], custom: true }))];
  }, [keys, allKeys, added]);
  const toggle = useCallback(
    (label: string, shown: boolean) =>
      update({
        hidden: shown ? settingsRef.current.hidden.filter((l) => l !== label) : [...new Set([...settingsRef.current.hidden, label])],
      }),
    [update],
  );
  // the wall-time axis starts at the runs' first point (only needed on that axis)
  const t0 = useMemo(() => {
    if (xMode !== 'time') return 0;
    let min = Infinity; // a loop: spreading 10⁵ points into Math.min overflows the stack
    for (const c of data.values()) for (const t of c.times) if (t < min) min = t;
    return min;
  }, [data, xMode]);

  // Built only when the data or the x-axis change, so typing in the metric search redraws no chart.
  // Compare: a run keeps its colour on every chart; validation lines are dashed so train stays visible,
  // and a run's other series on one chart (reward mean, max, …) are told apart by their line pattern.
  const labels = runs.map((r) => r.label).join('\u0001');
  const seriesByChart = useMemo(
    () =>
      (labelled ? groups : []).map((g): ChartSeries[] =>
        runs.flatMap((r, ri) =>
          g.keys.flatMap((k, ki) => {
            const c = data.get(`${r.id} ${k}`);
            if (!c) return [];
            const trainIndex = g.keys.slice(0, ki).filter((x) => !x.startsWith('val/')).length;
            return {
              label: runs.length > 1 ? `${r.label}: ${k}` : k,
              // on the step axis the API's columns are the chart's, uncopied
              x: xMode === 'step' ? c.steps : c.times.map((t) => t - t0),
              y: c.values,
              ...(runs.length > 1 ? { color: COLORS[ri % COLORS.length] } : {}),
              ...(k.startsWith('val/')
                ? { dash: VAL_DASH }
                : runs.length > 1 && SERIES_DASHES[trainIndex % SERIES_DASHES.length]
                  ? { dash: SERIES_DASHES[trainIndex % SERIES_DASHES.length] }
                  : {}),
            };
          }),
        ),
      ),
    // runs by value (ids and labels): the caller's array is new on every render
    [groups, ids, labels, labelled, data, xMode, t0],
  );

  if (error) return <p className="error">{error}</p>;
  if (!labelled) return <p className="muted">Loading charts…</p>;
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
            onChange={(e) => update({ smoothing: Number(e.target.value) })}
            aria-label="smoothing"
          />
        </label>
        <label>
          x-axis
          <select value={xMode} onChange={(e) => update({ x: e.target.value as 'step' | 'time' })}>
            <option value="step">step</option>
            <option value="time">wall time (s)</option>
          </select>
        </label>
        <label>
          <input type="checkbox" checked={logScale} onChange={(e) => update({ log: e.target.checked })} /> log scale
        </label>
        <label>
          layout
          <select aria-label="layout" value={columns} onChange={(e) => update({ columns: Number(e.target.value) as 0 | 1 | 2 | 3 })}>
            <option value={0}>fit</option>
            <option value={1}>1 column</option>
            <option value={2}>2 columns</option>
            <option value={3}>3 columns</option>
          </select>
        </label>
        {hidden.length ? (
          <button type="button" className="link" onClick={() => update({ hidden: [] })} data-testid="show-all-series">
            show {hidden.length} hidden
          </button>
        ) : null}
        <form
          className="add-chart"
          onSubmit={(e) => {
            e.preventDefault();
            if (allKeys.includes(pick) && !added.includes(pick)) update({ added: [...added, pick] });
            setPick('');
          }}
        >
          <input
            list="metric-keys"
            aria-label="metric to chart"
            placeholder="search a metric…"
            value={pick}
            onChange={(e) => setPick(e.target.value)}
          />
          <datalist id="metric-keys">
            {allKeys.map((k) => (
              <option key={k} value={k} />
            ))}
          </datalist>
          <button type="submit" disabled={!allKeys.includes(pick)} data-testid="add-chart">
            + chart
          </button>
        </form>
        {runs.length === 1 ? (
          <a className="button" href={`${base}/api/runs/${runs[0]!.id}/metrics?format=csv`} download>
            CSV
          </a>
        ) : null}
      </div>
      <div className={columns ? `charts cols-${columns}` : 'charts'} data-testid="charts">
        {groups.map((g, gi) => {
          return (
            <Chart
              onRemove={g.custom ? () => update({ added: added.filter((k) => k !== g.title) }) : undefined}
              key={g.title}
              title={g.title}
              series={seriesByChart[gi]!}
              smoothing={smoothing}
              log={logScale || g.log}
              xLabel={xMode === 'step' ? 'step' : 'seconds'}
              syncKey={`run-${ids}`}
              hidden={hidden}
              onToggle={toggle}
            />
          );
        })}
      </div>
    </div>
  );
}
