import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { ValidationError, type MetricsQuery, type RunMetricSeries } from '@starpo/contracts';
import { bySeries, downsampledSeries, metricKeys, metricPoints, metricVersions, teamMetricVersions, type Db } from '@starpo/db';
import { LRUCache } from 'lru-cache';
import type { Actor } from './auth/actor.js';
import { DB } from './di-tokens.js';
import { TeamReadsInFlight } from './shared-reads.js';
import { isUuid } from './validation.js';

type Series = Awaited<ReturnType<typeof downsampledSeries>>;

/** Points a process keeps in its cache of downsampled series (tens of MB). */
const CACHED_POINTS = 500_000;
/** Characters of rendered answers a process keeps by ETag (about 32 MB). */
const CACHED_BODY_CHARS = 32_000_000;

/** A metrics query as the routes parse it (one run's route names the run in its path instead). */
type SeriesQuery = Omit<MetricsQuery, 'runs'> & Partial<Pick<MetricsQuery, 'runs'>>;

/**
 * A rendered metrics answer: its ETag, and its text unless the caller's copy is current (then null:
 * answer 304); `gzipped` is the text compressed once per ETag and kept beside it.
 */
export type MetricsAnswer = { etag: string; body: null } | { etag: string; body: string; gzipped: () => Buffer };

@Injectable()
export class MetricsService {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(TeamReadsInFlight) private readonly reads: TeamReadsInFlight,
  ) {}

  /**
   * Whole-history downsampled series per run, with the run's metric version they were read at. A
   * finished run's charts are read again and again (every open of its page or a comparison); the read
   * costs a version lookup instead of the downsampling query while the run's metrics are unchanged.
   */
  private readonly cache = new LRUCache<string, { version: string; series: Series }>({
    maxSize: CACHED_POINTS,
    sizeCalculation: (e) => e.series.reduce((n, s) => n + s.points.length, 1),
  });

  /**
   * Rendered answers by ETag. The tag names the runs' metric versions and everything that shapes
   * the answer, so an entry never goes stale: a finished run's charts, asked by every screen that
   * shows them, are read and serialised once.
   */
  private readonly bodies = new LRUCache<string, string>({ maxSize: CACHED_BODY_CHARS, sizeCalculation: (body) => body.length || 1 });

  /** The same answers gzipped (a chart's 700 KB of JSON is about a fifth of that), so no request pays for compressing. */
  private readonly zipped = new LRUCache<string, Buffer>({ maxSize: CACHED_BODY_CHARS / 4, sizeCalculation: (z) => z.length || 1 });

  private gzipped(etag: string, body: string): Buffer {
    let z = this.zipped.get(etag);
    if (!z) {
      z = gzipSync(body);
      this.zipped.set(etag, z);
    }
    return z;
  }

  /**
   * A metrics answer as `render` writes it (`shape` names the route and format), with its ETag.
   * The runs' metric versions are read first, so an answer is never older than its tag; when
   * `ifNoneMatch` names the same tag nothing else is read or rendered (304). `runId`: one run's
   * route (404 unless the caller's team owns it), else the runs `q` names.
   */
  async answer(
    actor: Actor,
    q: SeriesQuery,
    runId: string | undefined,
    ifNoneMatch: string | undefined,
    shape: string,
    render: (series: RunMetricSeries[]) => string,
  ): Promise<MetricsAnswer> {
    const asked = runId ? [runId] : (q.runs ?? []);
    if (!asked.length) throw new ValidationError([{ path: 'runs', message: 'name at least one run id' }], 'query');
    // one statement checks the team and reads the versions (an id that is no uuid is no run of it),
    // shared by the team's screens that ask for the same runs meanwhile: a 304 then costs no statement
    const uuids = asked.filter(isUuid);
    const versions = await this.reads.share(actor.teamId, `metric versions ${uuids.join(',')}`, () =>
      teamMetricVersions(this.db, actor.teamId, uuids),
    );
    const ids = [...versions.keys()];
    if (runId && !ids.length) throw new NotFoundException(`run ${runId} not found`);
    const tag = createHash('sha1')
      .update(JSON.stringify([shape, q, ids.map((id) => [id, versions.get(id) ?? ''])]))
      .digest('base64url');
    const etag = `"m-${tag}"`;
    if (ifNoneMatch?.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return { etag, body: null };
    const text =
      this.bodies.get(etag) ??
      (await this.reads.share(actor.teamId, `metrics body ${etag}`, async () => {
        const body = render(await this.read(versions, q));
        this.bodies.set(etag, body);
        return body;
      }));
    return { etag, body: text, gzipped: () => this.gzipped(etag, text) };
  }

  /** Series of the runs `versions` names (checked to be the caller's), read at those metric versions or later. */
  private async read(versions: Map<string, string>, q: SeriesQuery): Promise<RunMetricSeries[]> {
    const ids = [...versions.keys()];
    if (q.maxPoints) {
      const keys = q.keys?.length ? q.keys : null;
      return q.from === undefined && q.to === undefined
        ? this.wholeHistory(versions, keys, q.maxPoints)
        : downsampledSeries(this.db, ids, keys, q.from ?? null, q.to ?? null, q.maxPoints);
    }
    const rows = await metricPoints(this.db, ids, q.keys ?? [], q.from, q.to);
    const out = new Map<string, RunMetricSeries>();
    for (const r of rows) {
      const id = `${r.runId} ${r.key}`;
      const s = out.get(id) ?? { runId: r.runId, key: r.key, points: [] };
      s.points.push({ step: r.step, value: r.value, time: r.time });
      out.set(id, s);
    }
    return [...out.values()];
  }

  /**
   * downsampledSeries over whole histories, through the cache: a run's entry is used while its metric
   * version is the one it was read at, and a fresh read is kept only when the version was the same
   * before and after it (no write committed in between, so the read saw exactly that version).
   * `before`: the versions the answer's ETag was made from, read before this.
   */
  private async wholeHistory(before: Map<string, string>, keys: string[] | null, maxPoints: number): Promise<Series> {
    const entry = (id: string) => `${id}\u0001${maxPoints}\u0001${keys?.join('\u0001') ?? ''}`;
    const out: Series = [];
    const missed: string[] = [];
    for (const id of before.keys()) {
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
