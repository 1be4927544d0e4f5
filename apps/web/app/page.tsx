'use client';
import { progressLabel, RUN_STATUSES, type RunSummary } from '@starpo/contracts';
import { Fragment, useEffect, useMemo, useState } from 'react';
import { algorithmLabel, duration, pct, when } from '../components/format';
import { GatedLink } from '../components/Gated';
import { Sparkline } from '../components/Sparkline';
import { warningTitle } from '../components/RunActivity';
import { Progress, StatusBadge } from '../components/StatusBadge';
import { ValChange } from '../components/ValVerdict';
import { useEnvs, useMe, useMembers, useRuns, useSparklines } from '../lib/queries';
import { denied } from '../lib/roles';
import { apiSort, COLUMNS, groupRuns, parseView, viewQuery, type RunsView } from '../lib/runs-view';
import { useTitle } from '../lib/title';

export default function RunsPage() {
  const me = useMe();
  useTitle('Runs');
  const [view, setView] = useState<RunsView | null>(null);
  // the view comes from the URL (a saved view is a link) and goes back into it on every change
  useEffect(() => setView(parseView(window.location.search)), []);
  useEffect(() => {
    if (!view) return;
    const q = viewQuery(view);
    window.history.replaceState(window.history.state, '', q ? `/?${q}` : '/');
  }, [view]);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [selected, setSelected] = useState<string[]>([]);
  const [metricCol, setMetricCol] = useState('');
  const cursor = cursors.at(-1) ?? null;
  const query = useMemo(() => {
    if (!view) return null;
    // every sort is the API's, over all matching runs, so paging stays in order
    const p = new URLSearchParams({ limit: '25', sort: apiSort(view.sort) });
    for (const k of ['q', 'status', 'environment', 'tag'] as const) if (view[k]) p.set(k, view[k]);
    const metrics = view.cols.filter((c) => c.startsWith('m:')).map((c) => c.slice(2));
    if (metrics.length) p.set('metrics', metrics.join(','));
    if (cursor) p.set('cursor', cursor);
    return p.toString();
  }, [view, cursor]);

  // polled (lib/queries.ts): status and progress stay current; the last page stays up while the next loads
  const { data: page, error } = useRuns(query, !!me);
  // the environments the API knows (the registry's, served by GET /api/envs)
  const envs = useEnvs().data ?? [];
  const members = useMembers(!!me && !!view?.cols.includes('owner'));
  const owners = useMemo(() => Object.fromEntries((members.data ?? []).map((m) => [m.userId, m.name])), [members.data]);

  const ids = page?.items.map((r) => r.id).join(',') ?? '';
  // asked again as the runs' steps move
  const sparkSeries = useSparklines(ids, page?.items.map((r) => r.currentStep).join(',') ?? '').data;
  const spark = useMemo(() => Object.fromEntries((sparkSeries ?? []).map((x) => [x.runId, x.points.map((p) => p.value)])), [sparkSeries]);

  const metricKeys = useMemo(() => [...new Set((page?.items ?? []).flatMap((r) => Object.keys(r.latest)))].sort(), [page]);
  if (!view) return <p className="muted">Loading…</p>;
  const set = (patch: Partial<RunsView>) => {
    setView({ ...view, ...patch });
    setCursors([null]);
  };
  const setFilter = (k: 'q' | 'status' | 'environment' | 'tag' | 'sort' | 'group') => (e: { target: { value: string } }) =>
    set({ [k]: e.target.value } as Partial<RunsView>);
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const toggleCol = (c: string) => set({ cols: view.cols.includes(c) ? view.cols.filter((x) => x !== c) : [...view.cols, c] });
  const label = (c: string) => COLUMNS[c] ?? c.slice(2);
  const cell = (r: RunSummary, c: string) => {
    if (c.startsWith('m:')) {
      const v = r.latest[c.slice(2)];
      return v === undefined ? '—' : Number(v.toPrecision(4));
    }
    switch (c) {
      case 'owner':
        return r.ownerId ? (owners[r.ownerId] ?? '…') : '—';
      case 'environment':
        return r.environment;
      case 'algorithm':
        return algorithmLabel(r);
      case 'tags':
        return r.tags.join(', ');
      case 'started':
        return <span title={when(r.startedAt)}>{r.startedAt ? new Date(r.startedAt).toLocaleTimeString() : '—'}</span>;
      case 'duration':
        return duration(r.startedAt, r.finishedAt);
      case 'progress':
        return <Progress step={r.currentStep} total={r.totalSteps} />;
      case 'change':
        return <ValChange run={r} />;
      case 'best':
        return pct(r.bestValSuccess);
      case 'spark':
        return <Sparkline values={spark[r.id] ?? []} />;
    }
    return null;
  };
  const rows = page ? groupRuns(page.items, view.group) : [];
  const sortKey = /^-?(?:m|last|max|min):(.+)$/.exec(view.sort)?.[1];

  return (
    <div>
      <div className="toolbar">
        <h1>Runs</h1>
        <input aria-label="search" placeholder="Search name, notes, tag" value={view.q} onChange={setFilter('q')} />
        <select aria-label="status" value={view.status} onChange={setFilter('status')}>
          <option value="">any status</option>
          {RUN_STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select aria-label="environment" value={view.environment} onChange={setFilter('environment')}>
          <option value="">any environment</option>
          {envs.map(({ name }) => (
            <option key={name}>{name}</option>
          ))}
        </select>
        <input aria-label="tag" placeholder="tag" value={view.tag} onChange={setFilter('tag')} size={10} />
        <select aria-label="sort" value={view.sort} onChange={setFilter('sort')}>
          <option value="-createdAt">newest first</option>
          <option value="createdAt">oldest first</option>
          <option value="name">name A–Z</option>
          <option value="-name">name Z–A</option>
          <option value="-best">best val success, high first</option>
          {[...new Set([...metricKeys, ...(sortKey ? [sortKey] : [])])].map((k) => (
            <optgroup key={k} label={k}>
              <option value={`-m:${k}`}>last value, high first</option>
              <option value={`m:${k}`}>last value, low first</option>
              <option value={`-max:${k}`}>highest so far, high first</option>
              <option value={`min:${k}`}>lowest so far, low first</option>
            </optgroup>
          ))}
        </select>
        <select aria-label="group by" value={view.group} onChange={setFilter('group')}>
          <option value="">no grouping</option>
          <option value="tag">group by tag</option>
          <option value="environment">group by environment</option>
          <option value="algorithm">group by algorithm</option>
        </select>
        <details className="columns">
          <summary>Columns</summary>
          <div className="panel" data-testid="columns">
            {Object.keys(COLUMNS).map((c) => (
              <label key={c}>
                <input type="checkbox" checked={view.cols.includes(c)} onChange={() => toggleCol(c)} /> {COLUMNS[c]}
              </label>
            ))}
            {view.cols
              .filter((c) => c.startsWith('m:'))
              .map((c) => (
                <label key={c}>
                  <input type="checkbox" checked onChange={() => toggleCol(c)} /> {c.slice(2)}
                </label>
              ))}
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if (metricCol && !view.cols.includes(`m:${metricCol}`)) toggleCol(`m:${metricCol}`);
                setMetricCol('');
              }}
            >
              <input
                list="run-metric-keys"
                aria-label="metric column"
                placeholder="a metric…"
                value={metricCol}
                onChange={(e) => setMetricCol(e.target.value)}
              />
              <datalist id="run-metric-keys">
                {metricKeys.map((k) => (
                  <option key={k} value={k} />
                ))}
              </datalist>
              <button type="submit">Add column</button>
            </form>
          </div>
        </details>
        <span className="spacer" />
        <a
          className={`button${selected.length < 2 ? ' disabled' : ''}`}
          href={selected.length >= 2 ? `/compare?runs=${selected.join(',')}` : undefined}
          aria-disabled={selected.length < 2}
          title={selected.length < 2 ? 'tick two or more runs to compare them' : undefined}
          data-testid="compare-selected"
        >
          Compare {selected.length || ''}
        </a>
        <GatedLink className="button primary" href="/runs/new" reason={denied(me, 'launch')}>
          New run
        </GatedLink>
      </div>
      {error ? <p className="error">{error.message}</p> : null}
      {!page ? (
        <p className="muted">Loading…</p>
      ) : page.items.length === 0 ? (
        <div className="panel empty">
          No runs {view.q || view.status || view.environment || view.tag ? 'match these filters' : 'yet'}.{' '}
          <a href="/runs/new">Launch one</a>.
        </div>
      ) : (
        <div className="table-scroll">
          <table className="runs" data-testid="runs-table">
            <thead>
              <tr>
                <th aria-label="select" />
                <th>Name</th>
                <th>Status</th>
                {view.cols.map((c) => (
                  <th key={c}>{label(c)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map(([group, runs]) => (
                <Fragment key={group}>
                  {view.group ? (
                    <tr className="group-head" data-testid="run-group">
                      <th colSpan={3 + view.cols.length} scope="colgroup">
                        {group} <span className="muted">({runs.length})</span>
                      </th>
                    </tr>
                  ) : null}
                  {runs.map((r) => (
                    <tr key={`${group} ${r.id}`} data-testid="run-row">
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`select ${r.name}`}
                          checked={selected.includes(r.id)}
                          onChange={() => toggle(r.id)}
                        />
                      </td>
                      <td>
                        <a href={`/runs/${r.id}`}>{r.name}</a>
                        {r.kind !== 'train' ? <span className="muted"> ({r.kind})</span> : null}
                      </td>
                      <td>
                        <StatusBadge status={r.status} cancelRequested={r.cancelRequested} />
                        {r.warnings.length ? (
                          <span className="badge warn" title={r.warnings.map(warningTitle).join(', ')} data-testid="run-warnings-badge">
                            {r.warnings.length} warning{r.warnings.length > 1 ? 's' : ''}
                          </span>
                        ) : null}
                        {r.progress ? <div className="muted small">{progressLabel(r.progress)}</div> : null}
                        {r.queuePosition ? <div className="muted small">#{r.queuePosition} in queue</div> : null}
                      </td>
                      {view.cols.map((c) => (
                        <td key={c}>{cell(r, c)}</td>
                      ))}
                    </tr>
                  ))}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="pager">
        {/* the same words as every other pager, whatever the sort */}
        <button disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← Previous
        </button>
        <button disabled={!page?.nextCursor} onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}>
          Next →
        </button>
      </div>
    </div>
  );
}
