'use client';
import {
  RUN_WARNING_CODES,
  WARNING_METRICS,
  estimateRemainingSeconds,
  FAST_ENGINE_FIX,
  isSlowEngine,
  progressLabel,
  type LogEvent,
  type LogLine,
  type RunProgress,
} from '@starpo/contracts';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { attachSocket, useApi } from '../lib/api';
import { useRunLogs } from '../lib/queries';

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

/** Projected finish times kept: enough to damp one slow or fast step, few enough to follow a real change. */
const FINISH_ESTIMATES = 6;

/**
 * The ETA as the median of the last few projected finish times (one per progress update from the
 * worker), so a single slow step does not swing it, with the range of those projections as its
 * uncertainty. Null until the first step was measured.
 */
function useSteadyEta(eta: number | null, at: number, now: number): { eta: number; low: number; high: number } | null {
  const finishes = useRef<number[]>([]);
  const seen = useRef(0);
  if (eta !== null && at !== seen.current) {
    seen.current = at;
    finishes.current = [...finishes.current, now + eta * 1000].slice(-FINISH_ESTIMATES);
  }
  if (eta === null || !finishes.current.length) return null;
  const sorted = [...finishes.current].sort((a, b) => a - b);
  const left = (t: number) => Math.max(0, (t - now) / 1000);
  return { eta: left(sorted[Math.floor(sorted.length / 2)]!), low: left(sorted[0]!), high: left(sorted.at(-1)!) };
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
  const eta = useSteadyEta(estimateRemainingSeconds({ currentStep, totalSteps, validationEvery, progress, now }), progress.at, now);
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
            <b>ETA</b> {seconds(eta.eta)}
            {eta.high - eta.low > Math.max(60, 0.1 * eta.eta) ? (
              <span className="muted" data-testid="eta-range" title="the range of the last few projections">
                {' '}
                ({seconds(eta.low)} – {seconds(eta.high)})
              </span>
            ) : null}
            <span className="muted">
              {' '}
              ({progress.stepSeconds!.toFixed(0)} s a step
              {progress.validationSeconds ? `, ${progress.validationSeconds.toFixed(0)} s a validation` : ''})
            </span>
          </>
        )}
        {isSlowEngine(progress.engine) ? ' ' : null}
        {isSlowEngine(progress.engine) ? (
          <span
            className="badge warn"
            data-testid="eta-slow-engine"
            title={`the worker trains on tfjs's own kernels (no OpenBLAS addon): several times slower a step; fix: ${FAST_ENGINE_FIX}`}
          >
            slow engine
          </span>
        ) : null}
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

/** One entry per warning code: the latest message, how often it was raised and over which steps. */
export function groupWarnings(lines: LogLine[]): { code: string; message: string; count: number; steps: number[] }[] {
  const byCode = new Map<string, { code: string; message: string; count: number; steps: number[] }>();
  for (const w of lines) {
    const code = w.code ?? '';
    const step = /^\[[a-z_]+\] step (\d+)/.exec(w.message)?.[1];
    const g = byCode.get(code) ?? { code, message: '', count: 0, steps: [] };
    g.count += 1;
    g.message = w.message.replace(/^\[[a-z_]+\] /, ''); // lines come oldest first: the last is the newest
    if (step !== undefined) g.steps.push(Number(step));
    byCode.set(code, g);
  }
  return [...byCode.values()].reverse();
}

/**
 * The run's warnings (log lines with a code), live: each code once with its count, newest first, and a
 * link that opens the chart of the metric it read. The list scrolls inside a short panel, so the tabs
 * below stay in view.
 */
export function WarningsPanel({ runId, codes, onShow }: { runId: string; codes: string[]; onShow: (metric: string) => void }) {
  // fetched again when a new code appears
  const { data } = useRunLogs(runId, { warnings: true, codes: codes.join(',') });
  if (!codes.length || !data?.length) return null;
  const groups = groupWarnings(data);
  return (
    <section className="panel warnings" role="alert" aria-labelledby="warnings-title" data-testid="run-warnings">
      <h3 id="warnings-title">This run may not be learning</h3>
      <ul tabIndex={0} aria-label="warnings, newest first">
        {groups.map((g) => (
          <li key={g.code} data-testid="run-warning">
            <b>{warningTitle(g.code)}</b>
            {g.count > 1 ? (
              <span className="badge warn" data-testid="warning-count" title={`raised ${g.count} times, at steps ${g.steps.join(', ')}`}>
                ×{g.count}
              </span>
            ) : null}{' '}
            {g.message}{' '}
            {g.code in WARNING_METRICS ? (
              <button type="button" className="link" onClick={() => onShow(WARNING_METRICS[g.code as keyof typeof WARNING_METRICS])}>
                show {WARNING_METRICS[g.code as keyof typeof WARNING_METRICS]}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Live log lines of a run: what the API has, then what the socket brings; follows the newest line unless scrolled up. */
export function LogsTab({ runId }: { runId: string }) {
  const { socket } = useApi();
  const { data, error } = useRunLogs(runId);
  const [live, setLive] = useState<LogEvent[]>([]);
  const box = useRef<HTMLPreElement>(null);
  // true until the reader scrolls up; scrolling back to the bottom follows again
  const follow = useRef(true);
  useEffect(() => {
    const on = (l: LogEvent) => l.runId === runId && setLive((x) => [...x, l]);
    return attachSocket(socket, (s) => {
      s.on('log', on);
      return () => void s.off('log', on);
    });
  }, [runId, socket]);
  const known = new Set((data ?? []).map((d) => d.id));
  const lines = [...(data ?? []), ...live.filter((l) => !known.has(l.id))];
  useLayoutEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [lines.length]);
  if (error) return <p className="error">{error.message}</p>;
  if (!lines.length) return <div className="panel empty">No log lines yet: the first comes when a worker claims the run.</div>;
  return (
    <pre
      className="panel logs"
      data-testid="logs"
      ref={box}
      tabIndex={0}
      aria-label="run log, newest line last"
      onScroll={(e) => {
        const el = e.currentTarget;
        follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {lines.map((l) => (
        <div key={l.id} className={`log-${l.level}`}>
          {new Date(l.at).toLocaleTimeString()} {l.level.padEnd(5)} {l.message}
        </div>
      ))}
    </pre>
  );
}
