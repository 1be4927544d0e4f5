'use client';
import { configDiff, PRESETS, buildRunConfig, type RunProgress, type StatusEvent } from '@starpo/contracts';
import { useParams, useRouter } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { algorithmLabel, duration, pct, when } from '../../../components/format';
import { DiagnosticsTab } from '../../../components/DiagnosticsTab';
import { Gated, GatedLink } from '../../../components/Gated';
import { RunCharts } from '../../../components/RunCharts';
import { RunMeta } from '../../../components/RunMeta';
import { Progress, StatusBadge } from '../../../components/StatusBadge';
import { TrajectoriesTab } from '../../../components/TrajectoriesTab';
import { LogsTab, PhaseProgress, WarningsPanel } from '../../../components/RunActivity';
import { useApi, useGet } from '../../../lib/api';
import { denied } from '../../../lib/roles';

interface RunDetail {
  id: string;
  name: string;
  kind: string;
  status: string;
  cancelRequested: boolean;
  stopReason: string | null;
  error: string | null;
  environment: string;
  algorithm: string;
  preset: string | null;
  tags: string[];
  notes: string;
  currentStep: number;
  totalSteps: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  bestValSuccess: number | null;
  latest: Record<string, number>;
  config: Record<string, unknown>;
  resumeCount: number;
  warnings: string[];
  progress: RunProgress | null;
  queuePosition: number | null;
  ownerId: string | null;
}
type Tab = 'charts' | 'trajectories' | 'diagnostics' | 'config' | 'checkpoints' | 'logs';
type TrajectoryFilter = Partial<Record<'flag' | 'from' | 'to' | 'split', string>>;

export default function RunPage() {
  const { id } = useParams<{ id: string }>();
  const { call, socket, base, me } = useApi();
  const router = useRouter();
  const { data: run, error, reload } = useGet<RunDetail>(`/api/runs/${id}`);
  const [tab, setTab] = useState<Tab>('charts');
  const [trajectoryFilter, setTrajectoryFilter] = useState<TrajectoryFilter>({});
  const [actionError, setActionError] = useState('');
  // set on click, before the API answers: the button must not invite a second click
  const [cancelClicked, setCancelClicked] = useState(false);

  useEffect(() => {
    const s = socket();
    const onStatus = (ev: StatusEvent) => ev.runId === id && reload();
    s.on('status', onStatus);
    const sub = () => void s.emitWithAck('subscribe', { runId: id, afterStep: 1e9 }).catch(() => {});
    s.on('connect', sub);
    if (s.connected) sub();
    const t = setInterval(reload, 10_000); // progress and heartbeat-driven changes
    return () => {
      s.off('status', onStatus);
      s.off('connect', sub);
      clearInterval(t);
    };
  }, [id, socket]);

  async function act(path: string, method = 'POST'): Promise<boolean> {
    setActionError('');
    try {
      await call(method, path);
      reload();
      return true;
    } catch (e) {
      setActionError((e as Error).message);
      return false;
    }
  }

  if (error)
    return (
      <div className="panel error">{error.status === 404 ? 'This run does not exist or belongs to another team.' : error.message}</div>
    );
  if (!run) return <p className="muted">Loading…</p>;
  const finished = ['succeeded', 'failed', 'cancelled', 'stopped_early'].includes(run.status);
  const cancelling = !finished && (cancelClicked || run.cancelRequested);
  const validationEvery = Number((run.config.rollout as { validation?: { every?: number } } | undefined)?.validation?.every ?? 0);

  return (
    <div>
      <div className="toolbar">
        <h1 data-testid="run-name">{run.name}</h1>
        <StatusBadge status={run.status} cancelRequested={run.cancelRequested} />
        <span className="spacer" />
        {!finished ? (
          <Gated reason={denied(me, 'cancel')}>
            <button
              disabled={cancelling || !!denied(me, 'cancel')}
              onClick={() => {
                setCancelClicked(true);
                void act(`/api/runs/${id}/cancel`).then((ok) => ok || setCancelClicked(false));
              }}
              data-testid="cancel"
            >
              {cancelling ? 'cancelling…' : 'Cancel'}
            </button>
          </Gated>
        ) : null}
        {['failed', 'cancelled'].includes(run.status) && run.kind === 'train' ? (
          <Gated reason={denied(me, 'resume')}>
            <button onClick={() => act(`/api/runs/${id}/resume`)} disabled={!!denied(me, 'resume')}>
              Resume
            </button>
          </Gated>
        ) : null}
        <GatedLink href={`/runs/new?from=${id}`} reason={denied(me, 'clone')} testId="clone">
          Clone
        </GatedLink>
        <Gated reason={denied(me, 'delete', run)}>
          <button
            className="danger"
            data-testid="delete"
            disabled={!!denied(me, 'delete', run)}
            onClick={async () => {
              if (!window.confirm(`Delete run "${run.name}" and all its metrics, trajectories and checkpoints?`)) return;
              try {
                await call('DELETE', `/api/runs/${id}`);
                router.push('/');
              } catch (e) {
                setActionError((e as Error).message);
              }
            }}
          >
            Delete
          </button>
        </Gated>
      </div>
      {actionError ? <p className="error">{actionError}</p> : null}
      <div className="panel facts">
        <span>
          <b>Progress</b> <Progress step={run.currentStep} total={run.totalSteps} />
        </span>
        <span>
          <b>Env</b> {run.environment}
        </span>
        <span>
          <b>Algorithm</b> {algorithmLabel(run)}
        </span>
        <span>
          <b>Started</b> {when(run.startedAt)}
        </span>
        <span>
          <b>Duration</b> {duration(run.startedAt, run.finishedAt)}
        </span>
        {run.status === 'queued' && run.queuePosition ? (
          <span data-testid="queue-position">
            <b>Queued</b> {run.queuePosition === 1 ? 'next for a worker' : `position ${run.queuePosition} in the queue`}
          </span>
        ) : null}
        <span>
          <b>Best val success</b> {pct(run.bestValSuccess)}
        </span>
        {run.stopReason ? (
          <span data-testid="stop-reason">
            <b>Stop reason</b> {run.stopReason}
          </span>
        ) : null}
        {run.resumeCount ? (
          <span>
            <b>Resumed</b> {run.resumeCount}×
          </span>
        ) : null}
      </div>
      {run.status === 'running' && run.progress ? (
        <PhaseProgress
          progress={run.progress}
          currentStep={run.currentStep}
          totalSteps={run.totalSteps}
          validationEvery={validationEvery}
        />
      ) : null}
      <WarningsPanel runId={id} codes={run.warnings} />
      {run.error ? <pre className="panel error">{run.error}</pre> : null}
      <RunMeta run={run} denied={denied(me, 'edit')} onSaved={reload} />
      <nav className="tabs" role="tablist">
        {(['charts', 'trajectories', 'diagnostics', 'config', 'checkpoints', 'logs'] as Tab[]).map((t) => (
          <button key={t} role="tab" aria-selected={tab === t} className={tab === t ? 'active' : ''} onClick={() => setTab(t)}>
            {t}
          </button>
        ))}
      </nav>
      {tab === 'charts' ? <RunCharts runs={[{ id, label: run.name }]} live={!finished} /> : null}
      {tab === 'trajectories' ? <TrajectoriesTab runId={id} initial={trajectoryFilter} env={run.config.env as { name: string }} /> : null}
      {tab === 'diagnostics' ? (
        <DiagnosticsTab
          runId={id}
          showTrajectories={(f) => {
            setTrajectoryFilter(f);
            setTab('trajectories');
          }}
        />
      ) : null}
      {tab === 'config' ? (
        run.kind === 'external' ? (
          <SentConfig config={run.config} />
        ) : (
          <ConfigTab config={run.config} preset={run.preset} />
        )
      ) : null}
      {tab === 'checkpoints' ? <CheckpointsTab runId={id} base={base} /> : null}
      {tab === 'logs' ? <LogsTab runId={id} /> : null}
    </div>
  );
}

/** An external run's config exactly as its trainer sent it (no defaults, nothing to compare against). */
function SentConfig({ config }: { config: Record<string, unknown> }) {
  return (
    <div className="panel">
      <h3>Config sent by the trainer</h3>
      <pre className="config" data-testid="sent-config">
        {JSON.stringify(config, null, 2)}
      </pre>
    </div>
  );
}

function ConfigTab({ config, preset }: { config: Record<string, unknown>; preset: string | null }) {
  const diff = useMemo(() => {
    try {
      return configDiff(config, buildRunConfig(preset && preset in PRESETS ? preset : undefined, { env: config.env as never }));
    } catch {
      return [];
    }
  }, [config, preset]);
  return (
    <div className="row">
      <div className="panel">
        <h3>Differences from {preset ?? 'the defaults'}</h3>
        {diff.length ? (
          <table>
            <tbody>
              {diff.map((d) => (
                <tr key={d.path}>
                  <td>
                    <code>{d.path}</code>
                  </td>
                  <td>{JSON.stringify(d.value)}</td>
                  <td className="muted">{JSON.stringify(d.reference)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">none</p>
        )}
      </div>
      <pre className="panel config grow">{JSON.stringify(config, null, 2)}</pre>
    </div>
  );
}

function CheckpointsTab({ runId, base }: { runId: string; base: string }) {
  const { data, error } = useGet<{ id: string; step: number; kind: string; sizeBytes: number; sha256: string; createdAt: string }[]>(
    `/api/runs/${runId}/checkpoints`,
  );
  if (error) return <p className="error">{error.message}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  if (!data.length) return <div className="panel empty">No checkpoints yet.</div>;
  // the step the archive serves: the latest complete one (state.json is written last), else the latest
  const complete = data.filter((c) => c.kind === 'state.json');
  const step = Math.max(...(complete.length ? complete : data).map((c) => c.step));
  return (
    <>
      <p>
        <a className="button primary" href={`${base}/api/runs/${runId}/checkpoints/archive`} data-testid="download-latest" download>
          Download the latest checkpoint (step {step})
        </a>{' '}
        <span className="muted">all its files in one .tar with SHA256SUMS, streamed; each file is listed below</span>
      </p>
      <table>
        <thead>
          <tr>
            <th>Step</th>
            <th>File</th>
            <th>Size</th>
            <th>sha256</th>
            <th>Saved</th>
          </tr>
        </thead>
        <tbody>
          {data.map((c) => (
            <tr key={c.id}>
              <td>{c.step}</td>
              <td>
                <a href={`${base}/api/checkpoints/${c.id}/download`}>{c.kind}</a>
              </td>
              <td>{(c.sizeBytes / 1024).toFixed(1)} KiB</td>
              <td>
                <code>{c.sha256.slice(0, 12)}…</code>
              </td>
              <td>{when(c.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
