'use client';
import { isFinishedStatus, RESUMABLE_STATUSES } from '@starpo/contracts';
import { useParams, useRouter } from 'next/navigation';
import { useState } from 'react';
import { CheckpointsTab } from '../../../components/CheckpointsTab';
import { ConfigTab, SentConfig } from '../../../components/ConfigTab';
import { algorithmLabel, duration, when } from '../../../components/format';
import { DiagnosticsTab } from '../../../components/DiagnosticsTab';
import { Gated, GatedLink } from '../../../components/Gated';
import { RunCharts } from '../../../components/RunCharts';
import { RunMeta } from '../../../components/RunMeta';
import { Progress, StatusBadge } from '../../../components/StatusBadge';
import { ValSummary } from '../../../components/ValVerdict';
import { TrajectoriesTab } from '../../../components/TrajectoriesTab';
import { LogsTab, PhaseProgress, WarningsPanel } from '../../../components/RunActivity';
import { useApi } from '../../../lib/api';
import { useCancelRun, useDeleteRun, useLiveRunStatus, useMe, useResumeRun, useRun } from '../../../lib/queries';
import { denied } from '../../../lib/roles';
import { useTitle } from '../../../lib/title';

type Tab = 'charts' | 'trajectories' | 'diagnostics' | 'config' | 'checkpoints' | 'logs';
type TrajectoryFilter = Partial<Record<'flag' | 'from' | 'to' | 'split', string>>;

export default function RunPage() {
  const { id } = useParams<{ id: string }>();
  const { base } = useApi();
  const me = useMe();
  const router = useRouter();
  // polled for progress and heartbeat-driven changes; a status event on the socket updates it at once
  const { data: run, error } = useRun(id, { poll: true });
  useLiveRunStatus(id);
  const cancel = useCancelRun();
  const resume = useResumeRun();
  const remove = useDeleteRun();
  const [tab, setTab] = useState<Tab>('charts');
  const [trajectoryFilter, setTrajectoryFilter] = useState<TrajectoryFilter>({});
  /** The metric a warning's link asked to see, and when (a second click scrolls to it again). */
  const [focus, setFocus] = useState<{ metric: string; at: number }>();
  const [actionError, setActionError] = useState('');
  // set on click, before the API answers: the button must not invite a second click
  const [cancelClicked, setCancelClicked] = useState(false);
  useTitle(run?.name);

  /** Runs a run action (a mutation of lib/queries.ts); its error is shown under the toolbar. */
  async function act(action: (id: string) => Promise<unknown>): Promise<boolean> {
    setActionError('');
    try {
      await action(id);
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
  const finished = isFinishedStatus(run.status);
  const cancelling = !finished && (cancelClicked || run.cancelRequested);
  const validationEvery = Number((run.config.rollout as { validation?: { every?: number } } | undefined)?.validation?.every ?? 0);

  return (
    <div>
      <div className="toolbar">
        <h1 data-testid="run-name">{run.name}</h1>
        <StatusBadge status={run.status} cancelRequested={run.cancelRequested} />
        <span className="spacer" />
        {!finished ? (
          <Gated reason={denied(me, 'cancel', run)}>
            <button
              disabled={cancelling || !!denied(me, 'cancel', run)}
              onClick={() => {
                setCancelClicked(true);
                void act(cancel.mutateAsync).then((ok) => ok || setCancelClicked(false));
              }}
              data-testid="cancel"
            >
              {cancelling ? 'cancelling…' : 'Cancel'}
            </button>
          </Gated>
        ) : null}
        {(RESUMABLE_STATUSES as readonly string[]).includes(run.status) && run.kind === 'train' ? (
          <Gated reason={denied(me, 'resume', run)}>
            <button onClick={() => act(resume.mutateAsync)} disabled={!!denied(me, 'resume', run)}>
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
                await remove.mutateAsync(id);
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
        <span data-testid="val-summary">
          <b>Val success</b> <ValSummary run={run} />
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
      <WarningsPanel
        runId={id}
        codes={run.warnings}
        onShow={(metric) => {
          setTab('charts');
          setFocus({ metric, at: Date.now() });
        }}
      />
      {run.error ? <pre className="panel error">{run.error}</pre> : null}
      <RunMeta run={run} denied={denied(me, 'edit', run)} />
      <nav className="tabs" role="tablist">
        {(['charts', 'trajectories', 'diagnostics', 'config', 'checkpoints', 'logs'] as Tab[]).map((t) => (
          <button key={t} role="tab" aria-selected={tab === t} className={tab === t ? 'active' : ''} onClick={() => setTab(t)}>
            {t}
          </button>
        ))}
      </nav>
      {tab === 'charts' ? <RunCharts runs={[{ id, label: run.name }]} live={!finished} focus={focus} /> : null}
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
