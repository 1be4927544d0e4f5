'use client';
import type { TrajectorySummary } from '@starpo/contracts';
import { createEnv, DIAGNOSTIC_FLAGS, type EnvSnapshot } from '@starpo/envs';
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import { useApi } from '../lib/api';
import { useTrajectories } from '../lib/queries';
import { Board } from './Board';
import { FLAG_MEANINGS, flagName } from './flags';
import { StepRange } from './StepRange';

/** Filtered trajectory list of a run, and the group view: the N rollouts of one initial state side by side. */
export function TrajectoriesTab({
  runId,
  initial = {},
  env,
}: {
  runId: string;
  initial?: Partial<Record<'flag' | 'from' | 'to' | 'split', string>>;
  /** The run's environment, to draw each group's initial state from its seed. */
  env?: { name: string; config?: Record<string, unknown> };
}) {
  const { base } = useApi();
  const router = useRouter();
  const [f, setF] = useState({ from: '', to: '', split: '', success: '', minReward: '', maxReward: '', group: '', flag: '', ...initial });
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [view, setView] = useState<'list' | 'groups'>('list');
  const query = useMemo(() => {
    // newest steps first: the policy as it is now is what one looks at first
    const p = new URLSearchParams({ limit: view === 'groups' ? '500' : '50', order: 'desc' });
    for (const [k, v] of Object.entries(f)) if (v !== '') p.set(k, v);
    const c = cursors.at(-1);
    if (c && view === 'list') p.set('cursor', c);
    return p.toString();
  }, [f, cursors, view]);
  const { data, error } = useTrajectories(runId, query);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => {
    setF({ ...f, [k]: e.target.value });
    setCursors([null]);
  };
  const groups = useMemo(() => {
    const m = new Map<string, TrajectorySummary[]>();
    for (const t of data?.items ?? []) {
      const k = `${t.step} ${t.split} ${t.group}`;
      m.set(k, [...(m.get(k) ?? []), t]);
    }
    return [...m.entries()];
  }, [data]);

  return (
    <div>
      <div className="toolbar filters">
        <StepRange value={f} set={set} />
        <select aria-label="success" value={f.success} onChange={set('success')}>
          <option value="">any outcome</option>
          <option value="true">success</option>
          <option value="false">failure</option>
        </select>
        <input aria-label="min reward" placeholder="min reward" value={f.minReward} onChange={set('minReward')} size={8} />
        <input aria-label="max reward" placeholder="max reward" value={f.maxReward} onChange={set('maxReward')} size={8} />
        <input aria-label="group" placeholder="group" value={f.group} onChange={set('group')} size={6} />
        <select aria-label="flag" value={f.flag} onChange={set('flag')}>
          <option value="">any diagnostics</option>
          {DIAGNOSTIC_FLAGS.map((flag) => (
            <option key={flag} value={flag}>
              {flagName(flag)}
            </option>
          ))}
        </select>
        <span className="spacer" />
        <span className="segmented" role="group" aria-label="view">
          <button aria-pressed={view === 'list'} className={view === 'list' ? 'active' : ''} onClick={() => setView('list')}>
            List
          </button>
          <button aria-pressed={view === 'groups'} className={view === 'groups' ? 'active' : ''} onClick={() => setView('groups')}>
            Groups
          </button>
        </span>
        <a className="button" href={`${base}/api/runs/${runId}/trajectories.jsonl`} download data-testid="export-jsonl">
          JSONL
        </a>
      </div>
      {error ? <p className="error">{error.message}</p> : null}
      {!data ? (
        <p className="muted">Loading…</p>
      ) : !data.items.length ? (
        <div className="panel empty">No trajectories match.</div>
      ) : view === 'list' ? (
        <>
          <table data-testid="trajectories-table">
            <thead>
              <tr>
                <th>Step</th>
                <th>Split</th>
                <th>Group</th>
                <th>#</th>
                <th>Seed</th>
                <th>Outcome</th>
                <th>Reward</th>
                <th>Turns</th>
                <th>Actions</th>
                <th>Filter</th>
                <th>Flags</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((t) => (
                <tr
                  key={t.id}
                  className="clickable"
                  title="open the replay"
                  data-testid="trajectory-row"
                  // the whole row opens the replay; the step link stays for the keyboard and for new tabs
                  onClick={(e) => {
                    if (!(e.target as HTMLElement).closest('a')) router.push(`/trajectories/${t.id}`);
                  }}
                >
                  <td>
                    <a href={`/trajectories/${t.id}`} data-testid="trajectory-link">
                      {t.step}
                    </a>
                  </td>
                  <td>{t.split}</td>
                  <td>{t.group}</td>
                  <td>{t.indexInGroup}</td>
                  <td>{t.seed}</td>
                  <td className={t.success ? 'ok' : 'bad'}>{t.success ? 'success' : 'failure'}</td>
                  <td>{t.totalReward.toFixed(2)}</td>
                  <td>{t.numTurns}</td>
                  <td>{t.numActions}</td>
                  <td>{t.keptByFilter === null ? '—' : t.keptByFilter ? 'kept' : 'dropped'}</td>
                  <td>
                    {t.flags.map((flag) => (
                      <span key={flag} className={`flag flag-${flag}`} title={FLAG_MEANINGS[flag] ?? flag}>
                        {flagName(flag)}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="pager">
            <button disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
              ← Previous
            </button>
            <button disabled={!data.nextCursor} onClick={() => data.nextCursor && setCursors([...cursors, data.nextCursor])}>
              Next →
            </button>
          </div>
        </>
      ) : (
        <div className="groups" data-testid="groups">
          {groups.map(([k, ts]) => {
            const rewards = ts.map((t) => t.totalReward);
            const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
            const std = Math.sqrt(rewards.reduce((a, b) => a + (b - mean) ** 2, 0) / rewards.length);
            return (
              <div className="panel group" key={k}>
                <h3>
                  step {ts[0]!.step} · {ts[0]!.split} · group {ts[0]!.group}
                </h3>
                <p className="muted">
                  seed {ts[0]!.seed} · mean {mean.toFixed(2)}, std {std.toFixed(2)}
                  {ts[0]!.keptByFilter === false ? ' · dropped by the filter' : ''}
                </p>
                {env ? <InitialState env={env} seed={ts[0]!.seed} /> : null}
                <div className="group-row">
                  {ts.map((t) => (
                    <a key={t.id} href={`/trajectories/${t.id}`} className={`gcell ${t.success ? 'ok' : 'bad'}`}>
                      #{t.indexInGroup}
                      <br />
                      {t.totalReward.toFixed(2)}
                      <br />
                      {t.numTurns} turn{t.numTurns === 1 ? '' : 's'}
                    </a>
                  ))}
                </div>
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}

/** A group's initial state, regenerated from its seed (the environments are deterministic per seed). */
function InitialState({ env, seed }: { env: { name: string; config?: Record<string, unknown> }; seed: number }) {
  const snapshot = useMemo((): EnvSnapshot | null => {
    try {
      const e = createEnv(env.name, env.config ?? {});
      e.reset(seed);
      return e.snapshot();
    } catch {
      return null; // an environment this dashboard does not know: the numbers still show
    }
  }, [env, seed]);
  return snapshot && snapshot.env !== 'bandit' ? <Board snapshot={snapshot} compact /> : null;
}
