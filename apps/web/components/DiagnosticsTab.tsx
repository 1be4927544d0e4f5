'use client';
import { DIAGNOSTIC_FLAGS } from '@starpo/envs';
import { useMemo, useState } from 'react';
import { useDiagnostics } from '../lib/queries';
import { FLAG_MEANINGS, flagName } from './flags';
import { RunCharts } from './RunCharts';
import { StepRange } from './StepRange';
import { HeldOutPrecision } from './HeldOutPrecision';
import { TeamPrecision } from './TeamPrecision';

const DIAG_KEYS = /\/diag\//;

/**
 * Where the agent's reasoning goes wrong: diagnostic rates over time, how many trajectories carry
 * each flag in a step range, and the most frequent contradicted claims with example turns.
 */
export function DiagnosticsTab({
  runId,
  showTrajectories,
}: {
  runId: string;
  showTrajectories: (filter: { flag: string; from: string; to: string; split: string }) => void;
}) {
  const [range, setRange] = useState({ from: '', to: '', split: '' });
  const query = useMemo(() => {
    const p = new URLSearchParams({ limit: '15' });
    for (const [k, v] of Object.entries(range)) if (v !== '') p.set(k, v);
    return p.toString();
  }, [range]);
  const { data, error } = useDiagnostics(runId, query);
  const runs = useMemo(() => [{ id: runId, label: 'run' }], [runId]);
  const set = (k: keyof typeof range) => (e: { target: { value: string } }) => setRange({ ...range, [k]: e.target.value.trim() });

  return (
    <div data-testid="diagnostics">
      <RunCharts runs={runs} only={DIAG_KEYS} />
      <div className="toolbar filters">
        <h2>Flags and contradicted claims</h2>
        <StepRange value={range} set={set} label="diagnostics" />
      </div>
      {error ? <p className="error">{error.message}</p> : null}
      {!data ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <div className="panel facts" data-testid="flag-counts">
            <span>
              <b>Trajectories</b> {data.trajectories}
            </span>
            {DIAGNOSTIC_FLAGS.map((f) => (
              <span key={f}>
                <button
                  className="link"
                  onClick={() => showTrajectories({ flag: f, ...range })}
                  title={`${FLAG_MEANINGS[f] ?? ''}: show these trajectories`}
                >
                  {flagName(f)}
                </button>{' '}
                <b>{data.flags[f] ?? 0}</b>
                {data.trajectories ? (
                  <span className="muted"> ({(((data.flags[f] ?? 0) / data.trajectories) * 100).toFixed(0)}%)</span>
                ) : null}
              </span>
            ))}
          </div>
          <HeldOutPrecision />
          <TeamPrecision />
          {!data.contradicted.length ? (
            <div className="panel empty">No contradicted claims in this range.</div>
          ) : (
            <table data-testid="contradicted-claims">
              <thead>
                <tr>
                  <th>Contradicted claim</th>
                  <th>Count</th>
                  <th>Examples (step · turn: the sentence — the truth)</th>
                </tr>
              </thead>
              <tbody>
                {data.contradicted.map((c) => (
                  <tr key={c.pattern}>
                    <td>{c.pattern}</td>
                    <td>{c.count}</td>
                    <td>
                      {c.examples.map((e) => (
                        <div key={`${e.trajectoryId} ${e.turn} ${e.text}`} className="example">
                          <a href={`/trajectories/${e.trajectoryId}?turn=${e.turn}`} data-testid="claim-example">
                            step {e.step} · turn {e.turn + 1}
                          </a>
                          : “{e.text}” {e.evidence ? <span className="truth">— {e.evidence}</span> : null}
                        </div>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </div>
  );
}
