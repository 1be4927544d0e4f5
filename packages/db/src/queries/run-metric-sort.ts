import { METRIC_SORT, ValidationError } from '@starpo/contracts';
import type { Db } from '../client.js';
import type { Prisma, Run } from '../generated/prisma/client.js';

export interface MetricSort {
  desc: boolean;
  /** metric_summaries keeps each run's last, highest and lowest value of every key. */
  field: 'value' | 'maxValue' | 'minValue';
  key: string;
}

const FIELDS = { last: 'value', max: 'maxValue', min: 'minValue' } as const;

/** `-max:val/success` → a metric sort; the plain column sorts → null. */
export function metricSort(sort: string): MetricSort | null {
  const m = METRIC_SORT.exec(sort);
  return m ? { desc: m[1] === '-', field: FIELDS[m[2] as keyof typeof FIELDS], key: m[3]! } : null;
}

type Cursor = { v: number | null; id: string };

/**
 * One page of the team's runs matching `where`, ordered by a metric over all of them (not only a
 * loaded page): runs without the metric last either way, ties by id. It reads every matching run's
 * id and summary value, which is small for a team's runs (one indexed row each).
 */
export async function pageByMetric(
  db: Db,
  where: Prisma.RunWhereInput,
  sort: MetricSort,
  limit: number,
  cursor: string | undefined,
): Promise<{ rows: Run[]; nextCursor: string | null }> {
  const ids = (await db.run.findMany({ where, select: { id: true } })).map((r) => r.id);
  const sums = await db.metricSummary.findMany({
    where: { runId: { in: ids }, key: sort.key },
    select: { runId: true, value: true, maxValue: true, minValue: true },
  });
  const value = new Map(sums.map((s) => [s.runId, s[sort.field]]));
  const dir = sort.desc ? -1 : 1;
  const order = (a: Cursor, b: Cursor): number => {
    if (a.v !== b.v) {
      if (a.v === null || b.v === null) return a.v === null ? 1 : -1;
      return (a.v - b.v) * dir;
    }
    return a.id < b.id ? -dir : a.id > b.id ? dir : 0;
  };
  const all = ids.map((id) => ({ id, v: value.get(id) ?? null })).sort(order);
  const after = cursor ? decode(cursor) : null;
  const start = after ? all.findIndex((c) => order(c, after) > 0) : 0;
  const page = start < 0 ? [] : all.slice(start, start + limit);
  const rows = await db.run.findMany({ where: { id: { in: page.map((c) => c.id) } } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const last = page.at(-1);
  return {
    // a run deleted between the two reads is left out
    rows: page.map((c) => byId.get(c.id)).filter((r): r is Run => r !== undefined),
    nextCursor: last && start + limit < all.length ? Buffer.from(JSON.stringify(last)).toString('base64url') : null,
  };
}

function decode(s: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString()) as Cursor;
    if ((c.v === null || Number.isFinite(c.v)) && typeof c.id === 'string') return { v: c.v, id: c.id };
  } catch {
    /* fall through */
  }
  throw new ValidationError([{ path: 'cursor', message: 'not a cursor from this listing' }], 'query');
}
