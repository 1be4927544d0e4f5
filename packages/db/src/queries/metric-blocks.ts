/** One metric point as writers give it (`time` defaults to the write's). */
export interface MetricPointInput {
  key: string;
  step: number;
  value: number;
  time?: Date;
}

/** Steps per metric block (bucket = step >> BLOCK_SHIFT). */
export const BLOCK_SHIFT = 6;
export const BLOCK_STEPS = 1 << BLOCK_SHIFT;

/**
 * One write's points as column arrays, cut into blocks: the points sorted by key then step
 * (`steps`, `values`, `times`: epoch seconds), and per block its key (1-based into `keys`), bucket,
 * first point (1-based into the point arrays), length and the 1-based positions, within the block,
 * of its lowest point (the earliest of equals) and highest (the latest of equals). Per key, its
 * latest point and extremes for the summary row. Postgres then only slices arrays.
 */
export interface BlockColumns {
  keys: string[];
  steps: number[];
  values: number[];
  times: number[];
  blockKey: number[];
  bucket: number[];
  start: number[];
  length: number[];
  minAt: number[];
  maxAt: number[];
  lastStep: number[];
  lastValue: number[];
  maxValue: number[];
  minValue: number[];
}

/**
 * Cut points into blocks; a key+step given twice keeps its last point, non-finite values are
 * dropped, and a point without a time gets `now` (epoch seconds). Null when nothing is left.
 */
export function toBlockColumns(points: MetricPointInput[], now: number): BlockColumns | null {
  const byKey = new Map<string, Map<number, MetricPointInput>>();
  for (const p of points) {
    if (!Number.isFinite(p.value)) continue;
    let m = byKey.get(p.key);
    if (!m) byKey.set(p.key, (m = new Map()));
    m.set(p.step, p);
  }
  if (!byKey.size) return null;
  const c: BlockColumns = {
    keys: [...byKey.keys()].sort(),
    steps: [],
    values: [],
    times: [],
    blockKey: [],
    bucket: [],
    start: [],
    length: [],
    minAt: [],
    maxAt: [],
    lastStep: [],
    lastValue: [],
    maxValue: [],
    minValue: [],
  };
  c.keys.forEach((key, k) => {
    const pts = [...byKey.get(key)!.values()].sort((a, b) => a.step - b.step);
    let max = -Infinity;
    let min = Infinity;
    for (let i = 0; i < pts.length;) {
      const bucket = pts[i]!.step >> BLOCK_SHIFT;
      const start = c.steps.length;
      let lo = 0;
      let hi = 0;
      for (let j = 0; i < pts.length && pts[i]!.step >> BLOCK_SHIFT === bucket; i++, j++) {
        const p = pts[i]!;
        c.steps.push(p.step);
        c.values.push(p.value);
        c.times.push(p.time ? p.time.getTime() / 1000 : now);
        if (p.value < c.values[start + lo]!) lo = j;
        if (p.value >= c.values[start + hi]!) hi = j;
      }
      c.blockKey.push(k + 1);
      c.bucket.push(bucket);
      c.start.push(start + 1);
      c.length.push(c.steps.length - start);
      c.minAt.push(lo + 1);
      c.maxAt.push(hi + 1);
      min = Math.min(min, c.values[start + lo]!);
      max = Math.max(max, c.values[start + hi]!);
    }
    c.lastStep.push(c.steps.at(-1)!);
    c.lastValue.push(c.values.at(-1)!);
    c.maxValue.push(max);
    c.minValue.push(min);
  });
  return c;
}

/** How many points a write of `points` stores: one per key+step, finite values only (as toBlockColumns keeps them). */
export function storedPointCount(points: MetricPointInput[]): number {
  const seen = new Map<string, Set<number>>();
  let n = 0;
  for (const p of points) {
    if (!Number.isFinite(p.value)) continue;
    let steps = seen.get(p.key);
    if (!steps) seen.set(p.key, (steps = new Set()));
    if (steps.has(p.step)) continue;
    steps.add(p.step);
    n++;
  }
  return n;
}

/**
 * A finite number array as a Postgres array literal. node-postgres quotes and escapes every element
 * (a fifth of a large write's client time); a JavaScript number's shortest form reads back exactly.
 */
export const pgNumbers = (xs: number[]): string => `{${xs.join(',')}}`;
