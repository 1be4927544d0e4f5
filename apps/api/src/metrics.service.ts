import { Inject, Injectable } from '@nestjs/common';
import { ValidationError, type MetricsQuery, type RunMetricSeries } from '@starpo/contracts';
import { bySeries, downsampledSeries, metricKeys, metricPoints, metricVersions, teamRunIds, type Db } from '@starpo/db';
import { LRUCache } from 'lru-cache';
import type { Actor } from './auth/actor.js';
import { DB } from './di-tokens.js';

type Series = Awaited<ReturnType<typeof downsampledSeries>>;

/** Points a process keeps in its cache of downsampled series (tens of MB). */
const CACHED_POINTS = 500_000;

@Injectable()
export class MetricsService {
  constructor(@Inject(DB) private readonly db: Db) {}

  /**
   * Whole-history downsampled series per run, with the run's metric version they were read at. A
   * finished run's charts are read again and again (every open of its page or a comparison); the read
   * costs a version lookup instead of the downsampling query while the run's metrics are unchanged.
   */
  private readonly cache = new LRUCache<string, { version: string; series: Series }>({
    maxSize: CACHED_POINTS,
    sizeCalculation: (e) => e.series.reduce((n, s) => n + s.points.length, 1),
  });

  /** Series of one or many runs (of the caller's team), with optional step range and downsampling. */
  async series(
    actor: Actor,
    q: Omit<MetricsQuery, 'runs'> & Partial<Pick<MetricsQuery, 'runs'>>,
    runId?: string,
  ): Promise<{ series: RunMetricSeries[]; format: MetricsQuery['format'] }> {
    const runIds = runId ? [runId] : (q.runs ?? []);
    if (!runIds.length) throw new ValidationError([{ path: 'runs', message: 'name at least one run id' }], 'query');
    const ids = await teamRunIds(this.db, actor.teamId, runIds);
    if (q.maxPoints) {
      const keys = q.keys?.length ? q.keys : null;
      const series =
        q.from === undefined && q.to === undefined
          ? await this.wholeHistory(ids, keys, q.maxPoints)
          : await downsampledSeries(this.db, ids, keys, q.from ?? null, q.to ?? null, q.maxPoints);
      return { series, format: q.format };
    }
    const rows = await metricPoints(this.db, ids, q.keys ?? [], q.from, q.to);
    const out = new Map<string, RunMetricSeries>();
    for (const r of rows) {
      const id = `${r.runId} ${r.key}`;
      const s = out.get(id) ?? { runId: r.runId, key: r.key, points: [] };
      s.points.push({ step: r.step, value: r.value, time: r.time });
      out.set(id, s);
    }
    const series = [...out.values()];
    return { series, format: q.format };
  }

  /**
   * downsampledSeries over whole histories, through the cache: a run's entry is used while its metric
   * version is the one it was read at, and a fresh read is kept only when the version was the same
   * before and after it (no write committed in between, so the read saw exactly that version).
   */
  private async wholeHistory(ids: string[], keys: string[] | null, maxPoints: number): Promise<Series> {
    const entry = (id: string) => `${id}\u0001${maxPoints}\u0001${keys?.join('\u0001') ?? ''}`;
    const before = await metricVersions(this.db, ids);
    const out: Series = [];
    const missed: string[] = [];
    for (const id of ids) {
      const hit = this.cache.get(entry(id));
      if (hit && hit.version === (before.get(id) ?? '')) out.push(...hit.series);
      else missed.push(id);
    }
    if (missed.length) {
      const fresh = await downsampledSeries(this.db, missed, keys, null, null, maxPoints);
      const after = await metricVersions(this.db, missed);
      for (const id of missed) {
        const version = before.get(id) ?? '';
        if (version === (after.get(id) ?? '')) this.cache.set(entry(id), { version, series: fresh.filter((s) => s.runId === id) });
      }
      out.push(...fresh);
    }
    return out.sort(bySeries); // the order downsampledSeries answers in
  }

  keys(runId: string): Promise<string[]> {
    return metricKeys(this.db, runId);
  }
}

/** run_id,key,step,value,time rows (RFC 4180 quoting for keys). */
export function seriesCsv(series: RunMetricSeries[]): string {
  const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
  const lines = ['run_id,key,step,value,time'];
  for (const s of series)
    for (const p of s.points) lines.push(`${s.runId},${q(s.key)},${p.step},${p.value},${new Date(p.time * 1000).toISOString()}`);
  return `${lines.join('\n')}\n`;
}
