import { Inject, Injectable } from '@nestjs/common';
import { metricsQuerySchema, ValidationError, type MetricsQuery, type RunMetricSeries } from '@starpo/contracts';
import { downsampledSeries, metricKeys, metricPoints, teamRunIds, type Db } from '@starpo/db';
import type { Actor } from './auth/actor.js';
import { DB } from './di-tokens.js';
import { parseInput } from './validation.js';

@Injectable()
export class MetricsService {
  constructor(@Inject(DB) private readonly db: Db) {}

  /** Series of one or many runs (of the caller's team), with optional step range and downsampling. */
  async series(actor: Actor, query: unknown, runId?: string): Promise<{ series: RunMetricSeries[]; format: MetricsQuery['format'] }> {
    const q = parseInput(metricsQuerySchema, query, 'query');
    const runIds = runId ? [runId] : (q.runs ?? []);
    if (!runIds.length) throw new ValidationError([{ path: 'runs', message: 'name at least one run id' }], 'query');
    const ids = await teamRunIds(this.db, actor.teamId, runIds);
    if (q.maxPoints) {
      const series = await downsampledSeries(this.db, ids, q.keys?.length ? q.keys : null, q.from ?? null, q.to ?? null, q.maxPoints);
      return { series, format: q.format };
    }
    const rows = await metricPoints(this.db, ids, q.keys ?? [], q.from, q.to);
    const out = new Map<string, RunMetricSeries>();
    for (const r of rows) {
      const id = `${r.runId} ${r.key}`;
      const s = out.get(id) ?? { runId: r.runId, key: r.key, points: [] };
      s.points.push({ step: r.step, value: r.value, time: r.wallTime.getTime() / 1000 });
      out.set(id, s);
    }
    const series = [...out.values()];
    return { series, format: q.format };
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
