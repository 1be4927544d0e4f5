export function StatusBadge({ status, cancelRequested }: { status: string; cancelRequested?: boolean }) {
  return (
    <span className={`badge s-${status}`} data-testid="status">
      {cancelRequested && status === 'running' ? 'cancelling' : status.replace('_', ' ')}
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
