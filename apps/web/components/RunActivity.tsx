'use client';
import {
  RUN_WARNING_CODES,
  estimateRemainingSeconds,
  progressLabel,
  type LogEvent,
  type LogLine,
  type RunProgress,
} from '@starpo/contracts';
import { useEffect, useState } from 'react';
import { attachSocket, useApi, useGet } from '../lib/api';

export function seconds(s: number): string {
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

/** Re-render every second (elapsed times and the ETA move between server updates). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

/** What the worker is doing now: "rollout 41/64 episodes · 23 s", with a bar, and the ETA from measured times. */
export function PhaseProgress({
  progress,
  currentStep,
  totalSteps,
  validationEvery,
}: {
  progress: RunProgress;
  currentStep: number;
  totalSteps: number;
  validationEvery: number;
}) {
  const now = useNow();
  const f = progress.total > 0 ? Math.min(1, progress.done / progress.total) : 0;
  const eta = estimateRemainingSeconds({ currentStep, totalSteps, validationEvery, progress, now });
  const label = progress.phase === 'loading' ? 'loading the base model' : progressLabel(progress);
  return (
    <div className="panel phase" data-testid="phase-progress" aria-live="polite">
      <b>
        {progress.step > currentStep
          ? `Step ${progress.step}/${totalSteps}`
          : progress.step === 0
            ? 'Before step 1'
            : `After step ${progress.step}`}
      </b>{' '}
      <span data-testid="phase-label">{label}</span>
      <span className="progress">
        <span className="bar" style={{ width: `${(100 * f).toFixed(1)}%` }} />
      </span>
      <span className="muted">{seconds(Math.max(0, (now - progress.startedAt) / 1000))} in this phase</span>
      <span data-testid="eta">
        {eta === null ? (
          <span className="muted">ETA after the first step</span>
        ) : (
          <>
            <b>ETA</b> {seconds(eta)}
            <span className="muted">
              {' '}
              ({progress.stepSeconds!.toFixed(0)} s a step
              {progress.validationSeconds ? `, ${progress.validationSeconds.toFixed(0)} s a validation` : ''})
            </span>
          </>
        )}
      </span>
    </div>
  );
}

const WARNING_TITLES: Record<(typeof RUN_WARNING_CODES)[number], string> = {
  no_well_formed_replies: 'No well-formed replies',
  zero_grad_norm: 'Zero gradient',
  no_reward_variance: 'No reward variance',
  action_collapse: 'One action dominates',
  reward_variance_falling: 'Reward variance collapsing',
  entropy_collapse: 'Entropy collapsing',
  empty_filtered_batches: 'Empty batches after the filter',
  low_validation_success: 'Validation success near zero',
};

export const warningTitle = (code: string) => WARNING_TITLES[code as keyof typeof WARNING_TITLES] ?? code;

/** The run's warnings (log lines with a code), newest first, live. */
export function WarningsPanel({ runId, codes }: { runId: string; codes: string[] }) {
  // fetched again when a new code appears
  const { data } = useGet<LogLine[]>(`/api/runs/${runId}/logs?warnings=1`, [codes.join(',')]);
  if (!codes.length || !data?.length) return null;
  return (
    <div className="panel warnings" role="alert" data-testid="run-warnings">
      <h3>This run may not be learning</h3>
      <ul>
        {[...data].reverse().map((w) => (
          <li key={w.id}>
            <b>{warningTitle(w.code ?? '')}</b> {w.message.replace(/^\[[a-z_]+\] /, '')}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Live log lines of a run: what the API has, then what the socket brings. */
export function LogsTab({ runId }: { runId: string }) {
  const { socket } = useApi();
  const { data, error } = useGet<LogLine[]>(`/api/runs/${runId}/logs`);
  const [live, setLive] = useState<LogEvent[]>([]);
  useEffect(() => {
    const on = (l: LogEvent) => l.runId === runId && setLive((x) => [...x, l]);
    return attachSocket(socket, (s) => {
      s.on('log', on);
      return () => void s.off('log', on);
    });
  }, [runId, socket]);
  if (error) return <p className="error">{error.message}</p>;
  const known = new Set((data ?? []).map((d) => d.id));
  const lines = [...(data ?? []), ...live.filter((l) => !known.has(l.id))];
  if (!lines.length) return <div className="panel empty">No log lines yet: the first comes when a worker claims the run.</div>;
  return (
    <pre className="panel logs" data-testid="logs">
      {lines.map((l) => (
        <div key={l.id} className={`log-${l.level}`}>
          {new Date(l.at).toLocaleTimeString()} {l.level.padEnd(5)} {l.message}
        </div>
      ))}
    </pre>
  );
}
