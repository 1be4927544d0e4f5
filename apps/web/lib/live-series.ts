import type { MetricsEvent, RunMetricColumns } from '@starpo/contracts';

/** One metric series of one run as the API's parallel columns (steps ascending, one point a step). */
export type SeriesColumns = Pick<RunMetricColumns, 'steps' | 'values' | 'times'>;

/** A point a live event brings: its step, its value and when it arrived (seconds since the epoch). */
export interface LivePoint {
  step: number;
  value: number;
  time: number;
}

/**
 * The series with `points` added, as a new object (the input is left as it is): a step after the last
 * is appended, a step already there has its value and time replaced (an event seen twice, e.g. again in
 * a reconnect's catch-up), and a late step is inserted in step order. The series is copied once for
 * all the points, so a catch-up of thousands of steps stays one copy. No cap: the charts downsample.
 */
export function appendPoints(series: SeriesColumns, points: readonly LivePoint[]): SeriesColumns {
  if (!points.length) return series;
  const steps = [...series.steps];
  const values = [...series.values];
  const times = [...series.times];
  for (const p of points) {
    const last = steps.at(-1);
    if (last === undefined || last < p.step) {
      steps.push(p.step);
      values.push(p.value);
      times.push(p.time);
      continue;
    }
    const at = steps.findIndex((s) => s >= p.step);
    if (steps[at] === p.step) {
      values[at] = p.value;
      times[at] = p.time;
    } else {
      steps.splice(at, 0, p.step);
      values.splice(at, 0, p.value);
      times.splice(at, 0, p.time);
    }
  }
  return { steps, values, times };
}

/**
 * Every series of the runs with a batch of live metric events applied (each event a step of one run
 * with a value per key): the series a batch touches are new objects, the others keep their identity,
 * and a key seen for the first time becomes a new series at the end. `time` is when the batch arrived.
 */
export function applyMetricEvents(series: readonly RunMetricColumns[], events: readonly MetricsEvent[], time: number): RunMetricColumns[] {
  if (!events.length) return [...series];
  const byId = new Map<string, LivePoint[]>();
  for (const ev of events)
    for (const [key, value] of Object.entries(ev.values)) {
      const id = `${ev.runId} ${key}`;
      const list = byId.get(id) ?? [];
      list.push({ step: ev.step, value, time });
      byId.set(id, list);
    }
  const out = series.map((c) => {
    const id = `${c.runId} ${c.key}`;
    const points = byId.get(id);
    if (!points) return c;
    byId.delete(id);
    return { ...c, ...appendPoints(c, points) };
  });
  for (const [id, points] of byId) {
    const space = id.indexOf(' ');
    out.push({ runId: id.slice(0, space), key: id.slice(space + 1), ...appendPoints({ steps: [], values: [], times: [] }, points) });
  }
  return out;
}

/** The last step any series of `runId` has (-1 when none): a live subscription asks for what follows. */
export function lastStep(series: readonly RunMetricColumns[] | undefined, runId: string): number {
  let last = -1;
  for (const c of series ?? []) if (c.runId === runId) last = Math.max(last, c.steps.at(-1) ?? -1);
  return last;
}
