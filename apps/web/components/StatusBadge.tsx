import type { RunSummary } from '@starpo/contracts';
import { pct } from './format';

export function StatusBadge({ status, cancelRequested }: { status: string; cancelRequested?: boolean }) {
  return (
    <span className={`badge s-${status}`} data-testid="status">
      {cancelRequested && status === 'running' ? 'cancelling' : status.replace('_', ' ')}
    </span>
  );
}

/** A finished run whose validation never beat its first (step-0) one: it ran, but learned nothing measurable. */
export function NotImprovedBadge({ run }: { run: Pick<RunSummary, 'bestValSuccess' | 'valSuccessAtStart'> }) {
  return (
    <span
      className="badge warn"
      data-testid="did-not-improve"
      title={`best validation success ${pct(run.bestValSuccess)} never beat the ${pct(run.valSuccessAtStart)} of the policy before training (step 0)`}
    >
      did not improve
    </span>
  );
}

/** A bar toward the planned step count; just the step when none was planned (an external run that sent none). */
export function Progress({ step, total }: { step: number; total: number }) {
  if (total <= 0)
    return (
      <span className="muted" data-testid="step-only">
        step {step}
      </span>
    );
  const f = total > 0 ? Math.min(1, step / total) : 0;
  return (
    <span className="progress" title={`${step} / ${total}`}>
      <span className="bar" style={{ width: `${(100 * f).toFixed(1)}%` }} />
      <span className="label">
        {step}/{total}
      </span>
    </span>
  );
}
