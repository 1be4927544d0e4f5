import type { RunSummary } from '@starpo/contracts';

/** What the runs list shows: filters, sort, columns and grouping, all kept in the URL (a saved view is a link). */
export interface RunsView {
  q: string;
  status: string;
  environment: string;
  tag: string;
  /** createdAt, name, or `last:`/`max:`/`min:` and a metric key (see apiSort); a leading `-` is descending. */
  sort: string;
  cols: string[];
  group: '' | 'tag' | 'environment' | 'algorithm';
}

/** Built-in columns; `m:<key>` adds any metric's last value. */
export const COLUMNS: Record<string, string> = {
  owner: 'Owner',
  environment: 'Env',
  algorithm: 'Preset / algorithm',
  tags: 'Tags',
  started: 'Started',
  duration: 'Duration',
  progress: 'Steps',
  change: 'Val first → last',
  best: 'Best val',
  spark: 'Val success',
};
export const DEFAULT_COLS = ['environment', 'algorithm', 'tags', 'started', 'duration', 'progress', 'change', 'best', 'spark'];
const GROUPS = ['', 'tag', 'environment', 'algorithm'] as const;

export function parseView(search: string): RunsView {
  const q = new URLSearchParams(search);
  const group = q.get('group') ?? '';
  const cols = q.get('cols');
  return {
    q: q.get('q') ?? '',
    status: q.get('status') ?? '',
    environment: q.get('environment') ?? '',
    tag: q.get('tag') ?? '',
    sort: q.get('sort') || '-createdAt',
    cols: cols === null ? DEFAULT_COLS : cols.split(',').filter((c) => c in COLUMNS || c.startsWith('m:')),
    group: (GROUPS as readonly string[]).includes(group) ? (group as RunsView['group']) : '',
  };
}

/** The view as a query string, leaving out what equals the default. */
export function viewQuery(v: RunsView): string {
  const q = new URLSearchParams();
  for (const k of ['q', 'status', 'environment', 'tag', 'group'] as const) if (v[k]) q.set(k, v[k]);
  if (v.sort !== '-createdAt') q.set('sort', v.sort);
  if (v.cols.join(',') !== DEFAULT_COLS.join(',')) q.set('cols', v.cols.join(','));
  return q.toString();
}

/**
 * The API's sort for the view's: the API sorts every matching run, by a column or by a metric's
 * last, highest or lowest value. `m:<key>` and `best` are the view's older spellings (kept so saved links work).
 */
export function apiSort(sort: string): string {
  const m = /^(-?)m:(.+)$/.exec(sort);
  if (m) return `${m[1]}last:${m[2]}`;
  if (sort === 'best' || sort === '-best') return `${sort.startsWith('-') ? '-' : ''}max:val/success`;
  return sort;
}

/** Runs under their group's heading; with tags a run is listed under each of its tags. */
export function groupRuns(runs: RunSummary[], by: RunsView['group']): [string, RunSummary[]][] {
  if (!by) return [['', runs]];
  const m = new Map<string, RunSummary[]>();
  for (const r of runs) {
    const names = by === 'tag' ? (r.tags.length ? r.tags : ['(no tag)']) : [by === 'environment' ? r.environment : r.algorithm];
    for (const n of names) m.set(n, [...(m.get(n) ?? []), r]);
  }
  return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
}
