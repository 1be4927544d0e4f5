/** A tiny SVG line of a series (values in [0, 1] by default). */
export function Sparkline({
  values,
  width = 90,
  height = 22,
  max = 1,
}: {
  values: number[];
  width?: number;
  height?: number;
  max?: number;
}) {
  if (values.length < 2) return <span className="muted">—</span>;
  const pts = values.map(
    (v, i) => `${((i / (values.length - 1)) * width).toFixed(1)},${(height - (Math.min(v, max) / max) * (height - 2) - 1).toFixed(1)}`,
  );
  return (
    <svg width={width} height={height} className="spark" aria-label="validation success trend">
      <polyline points={pts.join(' ')} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}
