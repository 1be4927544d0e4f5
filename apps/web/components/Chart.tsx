'use client';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  /** x (step or seconds) ascending, y. */
  points: [number, number][];
}

const COLORS = ['#5aa9ff', '#f0883e', '#3fb950', '#d2a8ff', '#f85149', '#e3b341', '#79c0ff', '#ff7b72'];

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

/** Align several series on the union of their x values (uPlot wants one x array). */
function align(series: ChartSeries[]): [number[], ...(number | null)[][]] {
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  const idx = new Map(xs.map((x, i) => [x, i]));
  const ys = series.map((s) => {
    const col: (number | null)[] = new Array(xs.length).fill(null);
    for (const [x, y] of s.points) col[idx.get(x)!] = y;
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
}: {
  title: string;
  series: ChartSeries[];
  smoothing: number;
  log?: boolean;
  xLabel: string;
  syncKey: string;
  width?: number;
  height?: number;
}) {
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = `${series.map((s) => s.label).join('|')}|${log ? 1 : 0}|${smoothing > 0 ? 1 : 0}|${xLabel}|${width}`;

  const data = (): uPlot.AlignedData => {
    const [xs, ...ys] = align(series);
    const cols = smoothing > 0 ? ys.flatMap((y) => [y, smooth(y, smoothing)]) : ys;
    return [xs, ...cols] as uPlot.AlignedData;
  };

  useEffect(() => {
    if (!el.current) return;
    const lines: uPlot.Series[] = series.flatMap((s, i) => {
      const color = COLORS[i % COLORS.length]!;
      return smoothing > 0
        ? [
            // the raw line stays on the canvas but out of the legend (class hides its row)
            { label: `${s.label} (raw)`, stroke: `${color}44`, width: 1, spanGaps: true, show: true, class: 'raw-series' },
            { label: s.label, stroke: color, width: 2, spanGaps: true },
          ]
        : [{ label: s.label, stroke: color, width: 2, spanGaps: true }];
    });
    plot.current = new uPlot(
      {
        title,
        width,
        height,
        cursor: { sync: { key: syncKey }, drag: { x: true, y: false } },
        legend: { live: true },
        scales: { x: { time: false }, y: log ? { distr: 3 } : {} },
        axes: [
          { label: xLabel, stroke: '#9aa7b4', grid: { stroke: '#2a3541' } },
          { stroke: '#9aa7b4', grid: { stroke: '#2a3541' } },
        ],
        series: [{ label: xLabel }, ...lines],
      },
      data(),
      el.current,
    );
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
    // rebuilt only when the chart's shape changes; data updates go through setData below
  }, [shape]);

  useEffect(() => {
    plot.current?.setData(data());
  }, [series, smoothing]);

  return <div className="chart" ref={el} data-testid="chart" data-points={series.reduce((n, s) => n + s.points.length, 0)} />;
}
