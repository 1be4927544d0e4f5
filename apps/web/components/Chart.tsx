'use client';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  /** x (step or seconds), ascending, and y: parallel columns. */
  x: number[];
  y: number[];
  /** A fixed colour (Compare: one per run) and a dash pattern (validation lines). */
  color?: string;
  dash?: number[];
}

export const COLORS = ['#5aa9ff', '#f0883e', '#3fb950', '#d2a8ff', '#f85149', '#e3b341', '#79c0ff', '#ff7b72'];

/** TensorBoard-style debiased exponential moving average. */
export function smooth(ys: (number | null)[], weight: number): (number | null)[] {
  if (weight <= 0) return ys;
  let last = 0;
  let n = 0;
  return ys.map((y) => {
    if (y === null || !Number.isFinite(y)) return null;
    last = last * weight + (1 - weight) * y;
    n++;
    return last / (1 - weight ** n);
  });
}

/**
 * The y range: uPlot's own for varied data; a constant series gets a small band around its value
 * (0 → 0..1) instead of an axis blown up to ±100 or none at all.
 */
function yRange(_u: uPlot, min: number | null, max: number | null): uPlot.Range.MinMax {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (min === max) {
    if (min === 0) return [0, 1];
    const pad = Math.abs(min) * 0.1;
    return [min - pad, max + pad];
  }
  return uPlot.rangeNum(min, max, 0.1, true);
}

/** A y tick: small and huge magnitudes (a learning rate of 1e-4) in exponent form instead of "0". */
export function tick(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '';
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(1) : String(Number(v.toPrecision(4)));
}

/** How far below (or above) the screen a chart's plot is already built, in CSS pixels. */
const NEAR_PX = 100;

/** The plot's width in a box `boxWidth` wide (4 px margin each side), or the fallback before layout. */
const fit = (boxWidth: number, fallback: number) => (boxWidth > 40 ? boxWidth - 8 : fallback);

/** Hides the lines labelled in `hidden` and shows the others (a raw line follows its smoothed one). */
function showOnly(u: uPlot, hidden: string[]): void {
  u.series.forEach((line, i) => {
    const label = String(line.label ?? '');
    if (i === 0 || label.endsWith(' (raw)')) return;
    const show = !hidden.includes(label);
    if (line.show !== show) u.setSeries(i, { show });
  });
}

const sameColumn = (a: number[], b: number[]) => a === b || (a.length === b.length && a.every((v, i) => v === b[i]));

/**
 * Align several series on the union of their x values (uPlot wants one x array). Series that share
 * their x column (one run's keys) are used as they are. Otherwise, series arrive in ascending x, so
 * each column is filled by one walk beside the sorted union (a Map lookup per point was a tenth of the
 * compare page's drawing time); a series out of order takes the lookup.
 */
function align(series: ChartSeries[]): [number[], ...(number | null)[][]] {
  const first = series[0]?.x ?? [];
  if (series.every((s) => sameColumn(s.x, first))) return [first, ...series.map((s) => s.y)];
  const all = new Float64Array(series.reduce((n, s) => n + s.x.length, 0));
  let n = 0;
  for (const s of series) for (const x of s.x) all[n++] = x;
  all.sort();
  const xs: number[] = [];
  for (const x of all) if (xs.length === 0 || xs[xs.length - 1] !== x) xs.push(x);
  let idx: Map<number, number> | null = null;
  const ys = series.map((s) => {
    const col: (number | null)[] = new Array(xs.length).fill(null);
    let j = 0;
    for (let i = 0; i < xs.length && j < s.x.length; i++) if (s.x[j] === xs[i]) col[i] = s.y[j++]!;
    if (j < s.x.length) {
      idx ??= new Map(xs.map((x, i) => [x, i]));
      s.x.forEach((x, i) => (col[idx!.get(x)!] = s.y[i]!));
    }
    return col;
  });
  return [xs, ...ys];
}

/**
 * A canvas line chart (uPlot): each series smoothed with the raw one faint behind it, a
 * crosshair synced with every chart of the same `syncKey`, optional log scale.
 */
export function Chart({
  title,
  series,
  smoothing,
  log,
  xLabel,
  syncKey,
  width = 400,
  height = 200,
  onRemove,
  hidden = [],
  onToggle,
  focused = false,
}: {
  title: string;
  series: ChartSeries[];
  smoothing: number;
  log?: boolean;
  xLabel: string;
  syncKey: string;
  width?: number;
  height?: number;
  /** Set for charts the user added: shows a remove button. */
  onRemove?: () => void;
  /** Series labels drawn hidden; a click on a legend entry reports the label and whether it is now shown. */
  hidden?: string[];
  onToggle?: (label: string, shown: boolean) => void;
  /** Marked as the chart a link asked for (a warning's metric). */
  focused?: boolean;
}) {
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const toggled = useRef(onToggle);
  toggled.current = onToggle;
  // a log axis needs positive values: a series that is all zero or negative is drawn on a linear one
  const logOk = !!log && series.some((s) => s.y.some((v) => v > 0));
  const shape = `${series.map((s) => `${s.label}${s.color ?? ''}${s.dash ?? ''}`).join('|')}|${logOk ? 1 : 0}|${smoothing > 0 ? 1 : 0}|${xLabel}|${width}`;

  const data = (): uPlot.AlignedData => {
    const [xs, ...ys] = align(series);
    const cols = smoothing > 0 ? ys.flatMap((y) => [y, smooth(y, smoothing)]) : ys;
    return [xs, ...cols] as uPlot.AlignedData;
  };
  const latestData = useRef(data);
  latestData.current = data;
  const latestHidden = useRef(hidden);
  latestHidden.current = hidden;

  useEffect(() => {
    if (!el.current) return;
    const lines: uPlot.Series[] = series.flatMap((s, i) => {
      const color = s.color ?? COLORS[i % COLORS.length]!;
      const show = !hidden.includes(s.label);
      const dash = s.dash ? { dash: s.dash } : {};
      return smoothing > 0
        ? [
            // the raw line stays on the canvas but out of the legend (class hides its row)
            { label: `${s.label} (raw)`, stroke: `${color}44`, width: 1, spanGaps: true, show, class: 'raw-series', ...dash },
            { label: s.label, stroke: color, width: 2, spanGaps: true, show, ...dash },
          ]
        : [{ label: s.label, stroke: color, width: 2, spanGaps: true, show, ...dash }];
    });
    const css = getComputedStyle(document.documentElement);
    const ink = css.getPropertyValue('--muted').trim() || '#9aa7b4';
    const grid = css.getPropertyValue('--border').trim() || '#2a3541';
    // steps are whole numbers: tick only at integer increments on a step axis
    const incrs =
      xLabel === 'step' ? [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000, 50_000] : undefined;
    const opts: Omit<uPlot.Options, 'width'> = {
      title,
      height,
      // shown/hidden series go through `hidden` (by label), not uPlot's sync (by index, wrong across charts)
      cursor: { sync: { key: syncKey, setSeries: false }, drag: { x: true, y: false } },
      hooks: {
        setSeries: [
          (u: uPlot, i: number | null, opts: uPlot.Series) => {
            const line = i === null ? undefined : u.series[i];
            if (!line || opts.show === undefined || line.label?.toString().endsWith(' (raw)')) return;
            // the faint raw line follows its smoothed one
            const raw = u.series[i! - 1];
            if (raw?.label === `${line.label} (raw)` && raw.show !== opts.show) u.setSeries(i! - 1, { show: opts.show }, false);
            toggled.current?.(String(line.label), opts.show);
          },
        ],
      },
      // the legend shows dashed series (validation) with a dashed marker
      legend: { live: true, markers: { dash: (u: uPlot, i: number) => markerStyle(u.series[i]?.dash) } },
      scales: { x: { time: false }, y: logOk ? { distr: 3 } : { range: yRange } },
      axes: [
        { label: xLabel, stroke: ink, grid: { stroke: grid }, ...(incrs ? { incrs } : {}) },
        { stroke: ink, grid: { stroke: grid }, values: (_u: uPlot, splits: number[]) => splits.map(tick) },
      ],
      series: [{ label: xLabel }, ...lines],
    };
    // The plot fills its panel and follows it when the window or the grid resizes. Its width comes from
    // the resize observer, which reports every chart's width after one layout (measuring each panel as
    // it is built would lay the page out once per chart). A plot is built once its panel comes near the
    // screen: a page of many charts draws what is seen first, the rest as the user scrolls to them.
    const box = el.current;
    let w = 0;
    let near = false;
    const build = () => {
      if (plot.current || !near || !w) return;
      plot.current = new uPlot({ ...opts, width: w }, latestData.current(), box);
      showOnly(plot.current, latestHidden.current); // the settings may have changed since `opts`
      // the CSS cuts long legend labels short: the whole label is their tooltip
      for (const label of box.querySelectorAll('.u-legend .u-label')) label.setAttribute('title', label.textContent ?? '');
    };
    const resize = new ResizeObserver(([entry]) => {
      w = fit(entry!.contentRect.width, width);
      if (!plot.current) build();
      else if (Math.abs(plot.current.width - w) > 1) plot.current.setSize({ width: w, height });
    });
    const view = new IntersectionObserver(
      ([entry]) => {
        if (!entry!.isIntersecting) return;
        near = true;
        view.disconnect();
        build();
      },
      { rootMargin: `${NEAR_PX}px 0px` },
    );
    resize.observe(box);
    view.observe(box);
    return () => {
      resize.disconnect();
      view.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // rebuilt only when the chart's shape changes; data updates go through setData below
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `shape` stands for every option the plot is built from
  }, [shape]);

  // new data for a plot already built (one still to be built takes `latestData` when it is)
  useEffect(() => {
    plot.current?.setData(data());
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `data` is derived from these two
  }, [series, smoothing]);

  // hidden elsewhere (another chart's legend, a link): apply without a rebuild
  useEffect(() => {
    if (plot.current) showOnly(plot.current, hidden);
  }, [hidden, shape]);

  const file = title.replace(/[^\w.-]+/g, '_');
  return (
    <div
      className={focused ? 'chart focused' : 'chart'}
      data-testid="chart"
      data-title={title}
      data-focused={focused || undefined}
      data-points={series.reduce((n, s) => n + s.y.length, 0)}
    >
      <div className="chart-tools">
        <button
          type="button"
          className="link"
          aria-label={`download ${title} as PNG`}
          onClick={() => {
            const canvas = el.current?.querySelector('canvas');
            if (canvas) save(canvas.toDataURL('image/png'), `${file}.png`);
          }}
        >
          PNG
        </button>
        <button
          type="button"
          className="link"
          aria-label={`download ${title} as CSV`}
          onClick={() => save(URL.createObjectURL(new Blob([toCsv(series, xLabel)], { type: 'text/csv' })), `${file}.csv`)}
        >
          CSV
        </button>
        {onRemove ? (
          <button type="button" className="link" aria-label={`remove chart ${title}`} onClick={onRemove}>
            remove
          </button>
        ) : null}
      </div>
      {/* the height a plot takes (title, canvas, a legend row) is kept before it is built, so the charts
          below a plot still to be drawn stay where they will be */}
      <div ref={el} style={{ minHeight: height + 56 }} />
    </div>
  );
}

/** The chart's raw (unsmoothed) series as CSV: one row per x, one column per series. */
export function toCsv(series: ChartSeries[], xLabel: string): string {
  const [xs, ...ys] = align(series);
  const quote = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const rows = xs.map((x, i) => [x, ...ys.map((y) => y[i] ?? '')].join(','));
  return [[xLabel, ...series.map((s) => quote(s.label))].join(','), ...rows].join('\n') + '\n';
}

function save(href: string, name: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.click();
  if (href.startsWith('blob:')) setTimeout(() => URL.revokeObjectURL(href), 1000);
}

/** The legend marker for a line pattern: short dots read as dotted, the rest as dashed. */
function markerStyle(dash: number[] | undefined): string {
  if (!dash?.length) return 'solid';
  return dash[0]! <= 2 ? 'dotted' : 'dashed';
}
