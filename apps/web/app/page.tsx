'use client';
import type { Page, RunSummary } from '@starpo/contracts';
import { useEffect, useMemo, useState } from 'react';
import { duration, pct, when } from '../components/format';
import { Sparkline } from '../components/Sparkline';
import { Progress, StatusBadge } from '../components/StatusBadge';
import { useApi } from '../lib/api';
import { denied } from '../lib/roles';
import { GatedLink } from '../components/Gated';

type Series = { runId: string; key: string; points: { step: number; value: number }[] };

export default function RunsPage() {
  const { call, me } = useApi();
  const [filters, setFilters] = useState({ q: '', status: '', environment: '', tag: '', sort: '-createdAt' });
  // a tag link (/?tag=…) opens the list filtered by it
  useEffect(() => {
    const tag = new URLSearchParams(window.location.search).get('tag');
    if (tag) setFilters((f) => ({ ...f, tag }));
  }, []);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<Page<RunSummary> | null>(null);
  const [error, setError] = useState('');
  const [spark, setSpark] = useState<Record<string, number[]>>({});
  const [selected, setSelected] = useState<string[]>([]);
  const cursor = cursors.at(-1) ?? null;
  const query = useMemo(() => {
    const p = new URLSearchParams({ limit: '25', sort: filters.sort });
    if (filters.q) p.set('q', filters.q);
    if (filters.status) p.set('status', filters.status);
    if (filters.environment) p.set('environment', filters.environment);
    if (filters.tag) p.set('tag', filters.tag);
    if (cursor) p.set('cursor', cursor);
    return p.toString();
  }, [filters, cursor]);

  useEffect(() => {
    if (!me) return;
    let live = true;
    const load = () =>
      call<Page<RunSummary>>('GET', `/api/runs?${query}`)
        .then((p) => live && (setPage(p), setError('')))
        .catch((e: Error) => live && setError(e.message));
    void load();
    const t = setInterval(load, 3000); // status and progress stay current
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [call, query, me]);

  const ids = page?.items.map((r) => r.id).join(',') ?? '';
  useEffect(() => {
    if (!ids) return;
    call<Series[]>('GET', `/api/metrics?runs=${ids}&keys=val/success&maxPoints=40`)
      .then((s) => setSpark(Object.fromEntries(s.map((x) => [x.runId, x.points.map((p) => p.value)]))))
      .catch(() => {});
  }, [call, ids, page?.items.map((r) => r.currentStep).join(',')]);

  const setFilter = (k: keyof typeof filters) => (e: { target: { value: string } }) => {
    setFilters({ ...filters, [k]: e.target.value });
    setCursors([null]);
  };
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));

  return (
    <div>
      <div className="toolbar">
        <h1>Runs</h1>
        <input aria-label="search" placeholder="Search name, notes, tag" value={filters.q} onChange={setFilter('q')} />
        <select aria-label="status" value={filters.status} onChange={setFilter('status')}>
          <option value="">any status</option>
          {['queued', 'running', 'succeeded', 'failed', 'cancelled', 'stopped_early'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select aria-label="environment" value={filters.environment} onChange={setFilter('environment')}>
          <option value="">any environment</option>
          {['sokoban', 'frozenlake', 'bandit'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <input aria-label="tag" placeholder="tag" value={filters.tag} onChange={setFilter('tag')} size={10} />
        <select aria-label="sort" value={filters.sort} onChange={setFilter('sort')}>
          <option value="-createdAt">newest first</option>
          <option value="createdAt">oldest first</option>
          <option value="name">name A–Z</option>
          <option value="-name">name Z–A</option>
        </select>
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
      {error ? <p className="error">{error}</p> : null}
      {!page ? (
        <p className="muted">Loading…</p>
      ) : page.items.length === 0 ? (
        <div className="panel empty">
          No runs {filters.q || filters.status || filters.environment || filters.tag ? 'match these filters' : 'yet'}.{' '}
          <a href="/runs/new">Launch one</a>.
        </div>
      ) : (
        <table className="runs" data-testid="runs-table">
          <thead>
            <tr>
              <th aria-label="select" />
              <th>Name</th>
              <th>Status</th>
              <th>Env</th>
              <th>Preset / algorithm</th>
              <th>Tags</th>
              <th>Started</th>
              <th>Duration</th>
              <th>Progress</th>
              <th>Best val</th>
              <th>Val success</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((r) => (
              <tr key={r.id} data-testid="run-row">
                <td>
                  <input type="checkbox" aria-label={`select ${r.name}`} checked={selected.includes(r.id)} onChange={() => toggle(r.id)} />
                </td>
                <td>
                  <a href={`/runs/${r.id}`}>{r.name}</a>
                  {r.kind !== 'train' ? <span className="muted"> ({r.kind})</span> : null}
                </td>
                <td>
                  <StatusBadge status={r.status} cancelRequested={r.cancelRequested} />
                </td>
                <td>{r.environment}</td>
                <td>
                  {r.preset ?? 'custom'} / {r.algorithm}
                </td>
                <td>{r.tags.join(', ')}</td>
                <td title={when(r.startedAt)}>{r.startedAt ? new Date(r.startedAt).toLocaleTimeString() : '—'}</td>
                <td>{duration(r.startedAt, r.finishedAt)}</td>
                <td>
                  <Progress step={r.currentStep} total={r.totalSteps} />
                </td>
                <td>{pct(r.bestValSuccess)}</td>
                <td>
                  <Sparkline values={spark[r.id] ?? []} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="pager">
        <button disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← Newer
        </button>
        <button disabled={!page?.nextCursor} onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}>
          Older →
        </button>
      </div>
    </div>
  );
}
