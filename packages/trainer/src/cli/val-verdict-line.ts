import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { VAL_VERDICT_LABELS, valVerdict, type ValPoint } from '@starpo/contracts';

const pct = (v: number) => `${(100 * v).toFixed(1)}%`;

/** The validations in a run folder's metrics.jsonl, by step (a resumed run's earlier ones too; a step logged again wins). */
export function readValidations(dir: string): ValPoint[] {
  const file = path.join(dir, 'metrics.jsonl');
  if (!existsSync(file)) return [];
  const byStep = new Map<number, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const m = JSON.parse(line) as Record<string, number>;
    if (typeof m['val/success'] === 'number') byStep.set(m.step!, m['val/success']);
  }
  return [...byStep].sort(([a], [b]) => a - b).map(([step, value]) => ({ step, value }));
}

/** `starpo train`'s last line: first → last validation success and whether the change is more than noise. */
export function valVerdictLine(validations: ValPoint[], episodes: number): string {
  const first = validations[0];
  const last = validations.at(-1);
  const v = valVerdict(first, last, episodes);
  if (!v.verdict) return `validation success${last ? ` ${pct(last.value)}` : ''}: no verdict, ${v.reason}`;
  return (
    `validation success ${pct(first!.value)} → ${pct(last!.value)} (${episodes} episodes each): ` +
    `${VAL_VERDICT_LABELS[v.verdict]} (±${(100 * v.noise!).toFixed(1)} points is noise)`
  );
}
