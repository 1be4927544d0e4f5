export function StatusBadge({ status, cancelRequested }: { status: string; cancelRequested?: boolean }) {
  return (
    <span className={`badge s-${status}`} data-testid="status">
      {cancelRequested && status === 'running' ? 'cancelling' : status.replace('_', ' ')}
    </span>
  );
}

export function Progress({ step, total }: { step: number; total: number }) {
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
