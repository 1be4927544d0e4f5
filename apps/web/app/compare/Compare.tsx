'use client';
import { configDiff } from '@starpo/contracts';
import { useSearchParams } from 'next/navigation';
import { Fragment, useMemo } from 'react';
import { RunCharts } from '../../components/RunCharts';
import { compareIds } from '../../lib/compare';
import { getPath } from '../../lib/paths';
import { useRunsById } from '../../lib/queries';
import { useTitle } from '../../lib/title';

/** The compare view of the runs in `?runs=a,b,…`: their config differences and every chart, one colour per run. */
export function Compare() {
  const params = useSearchParams();
  const ids = useMemo(() => compareIds(params.get('runs')), [params]);
  const { data: runs, error } = useRunsById(ids);
  useTitle(ids.length >= 2 ? `Compare ${ids.length} runs` : 'Compare runs');
  /** Every config path where some run differs from the first. */
  const diffs = useMemo(() => {
    if (runs.length < 2) return [];
    const paths = new Set(runs.slice(1).flatMap((r) => configDiff(r.config, runs[0]!.config).map((d) => d.path)));
    return [...paths].sort().map((p) => ({ path: p, values: runs.map((r) => getPath(r.config, p)) }));
  }, [runs]);

  if (ids.length < 2)
    return (
      <div>
        <h1>Compare runs</h1>
        <div className="panel empty">
          Tick two or more runs on the <a href="/">runs page</a>, then press Compare.
        </div>
      </div>
    );
  if (error) return <p className="error">{error.message}</p>;
  const loaded = runs.length === ids.length;
  const names = new Map(runs.map((r) => [r.id, r.name]));
  return (
    <div>
      <h1>Compare {ids.length} runs</h1>
      <div className="panel">
        <h3>Config differences</h3>
        {!loaded ? (
          <p className="muted">Loading…</p>
        ) : diffs.length ? (
          <table data-testid="config-diff" className="config-diff">
            <thead>
              <tr>
                <th>setting</th>
                {runs.map((r) => (
                  <th key={r.id}>
                    <a href={`/runs/${r.id}`}>{r.name}</a>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {diffs.map((d) => (
                <tr key={d.path}>
                  <td>
                    <code className="path">{dotted(d.path)}</code>
                  </td>
                  {d.values.map((v, i) => (
                    <td key={i}>{v === undefined ? <span className="muted">not set</span> : JSON.stringify(v)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">Same config.</p>
        )}
      </div>
      {/* the metrics load beside the runs' details; the charts are drawn once the runs' names are in */}
      <RunCharts runs={ids.map((id) => ({ id, label: names.get(id) ?? id }))} labelled={loaded} />
    </div>
  );
}

/** A dotted path that wraps after its dots ("training.<wbr>steps") rather than inside a key. */
function dotted(path: string) {
  return path.split('.').map((key, i) => (
    <Fragment key={i}>
      {i ? (
        <>
          .<wbr />
        </>
      ) : null}
      {key}
    </Fragment>
  ));
}
