'use client';

type Change = (e: { target: { value: string } }) => void;

/** From-step, to-step and split inputs shared by the trajectory list and the diagnostics tab. */
export function StepRange({
  value,
  set,
  label = '',
}: {
  value: { from: string; to: string; split: string };
  set: (key: 'from' | 'to' | 'split') => Change;
  label?: string;
}) {
  const name = (s: string) => (label ? `${label} ${s}` : s);
  return (
    <>
      <input aria-label={name('from step')} placeholder="from step" value={value.from} onChange={set('from')} size={8} />
      <input aria-label={name('to step')} placeholder="to step" value={value.to} onChange={set('to')} size={8} />
      <select aria-label={name('split')} value={value.split} onChange={set('split')}>
        <option value="">train + val</option>
        <option value="train">train</option>
        <option value="val">val</option>
      </select>
    </>
  );
}
