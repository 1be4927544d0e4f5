'use client';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useApi } from '../lib/api';
import type { SeriesColumns } from '../lib/live-series';
import { useChartMetrics } from '../lib/queries';
import { Chart, COLORS, type ChartSeries } from './Chart';
import { groupKeys } from './chart-groups';
import { useChartSettings } from './chart-settings';

/** Validation lines: dashed. */
const VAL_DASH = [6, 4];
/** A run's further training series on one compared chart: solid, dotted, dash-dot (its colour is the run's). */
const SERIES_DASHES: (number[] | undefined)[] = [undefined, [2, 3], [10, 3, 2, 3]];

/** A key is `metric` or one of its sub-keys (`train/action_share` stands for `train/action_share/Up`, …). */
const isOf = (key: string, metric: string) => key === metric || key.startsWith(`${metric}/`);

/**
 * Every chart group for one or more runs: loaded downsampled from the API, then extended live
 * from the socket (useChartMetrics in lib/queries.ts; lib/live-series.ts adds the points).
 * `labelled` false: the runs' labels are not known yet (Compare, before the runs' details arrive). The data
 * load anyway; the charts wait, since a label is part of a chart's shape and a change rebuilds it.
 * `focus`: a metric to show (a warning's link): its chart is scrolled to and marked, and added for the
 * time being if no chart has it.
 */
export function RunCharts({
  runs,
  live = true,
  only,
  labelled = true,
  focus,
}: {
  runs: { id: string; label: string }[];
  live?: boolean;
  only?: RegExp;
  labelled?: boolean;
  focus?: { metric: string; at: number };
}) {
  const { base } = useApi();
  const [settings, update] = useChartSettings();
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const { smoothing, x: xMode, log: logScale, added, hidden, columns } = settings;
  const [pick, setPick] = useState('');
  const ids = runs.map((r) => r.id).join(',');

  const metrics = useChartMetrics(ids, live);
  const error = metrics.error?.message ?? '';
  // one series a `run key` (the charts read the API's columns as they are, with no object per point)
  const data = useMemo(() => new Map<string, SeriesColumns>((metrics.data ?? []).map((c) => [`${c.runId} ${c.key}`, c])), [metrics.data]);

  const allKeys = useMemo(() => [...new Set([...data.keys()].map((k) => k.slice(k.indexOf(' ') + 1)))].sort(), [data]);
  const keys = useMemo(() => allKeys.filter((k) => !only || only.test(k)), [allKeys, only]);
  const groups = useMemo((): { title: string; keys: string[]; log?: boolean; custom?: boolean }[] => {
    const g = groupKeys(keys);
    const charted = new Set(g.flatMap((x) => x.keys));
    // charts added with "+ chart", for any logged key, after the built-in ones
    const all = [...g, ...added.filter((k) => allKeys.includes(k) && !charted.has(k)).map((k) => ({ title: k, keys: [k], custom: true }))];
    const focusKeys = focus ? allKeys.filter((k) => isOf(k, focus.metric)) : [];
    if (!focusKeys.length || all.some((x) => x.keys.some((k) => isOf(k, focus!.metric)))) return all;
    return [...all, { title: focus!.metric, keys: focusKeys }];
  }, [keys, allKeys, added, focus]);
  const focused = focus ? groups.findIndex((g) => g.keys.some((k) => isOf(k, focus.metric))) : -1;
  const chartsBox = useRef<HTMLDivElement>(null);
  // each click of a warning's link brings its chart into view (the chart draws once near the screen)
  useEffect(() => {
    chartsBox.current?.querySelector('[data-focused]')?.scrollIntoView({ block: 'center' });
  }, [focus?.at, focused]);
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
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `ids` and `labels` stand for `runs`
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
      {focus && focused < 0 && metrics.data ? (
        <p className="muted" data-testid="focus-missing">
          This run logged no {focus.metric}.
        </p>
      ) : null}
      <div className={columns ? `charts cols-${columns}` : 'charts'} data-testid="charts" ref={chartsBox}>
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
              focused={gi === focused}
            />
          );
        })}
      </div>
    </div>
  );
}
