import { BEST_VAL_CAVEAT, VAL_VERDICT_LABELS, VAL_VERDICT_METHOD, type RunSummary } from '@starpo/contracts';
import type { ReactNode } from 'react';
import { pct } from './format';

type ValRun = Pick<RunSummary, 'valSuccessAtStart' | 'valSuccessAtEnd' | 'bestValSuccess' | 'valEpisodes' | 'valVerdict'>;

const points = (x: number) => (100 * Math.abs(x)).toFixed(1);
const wholePct = (x: number | null) => (x === null ? '—' : `${Math.round(100 * x)}%`);

/** The change against its noise, then how it was judged: the tooltip of every verdict. */
function verdictTitle(run: ValRun): string | undefined {
  const v = run.valVerdict;
  if (!v) return undefined;
  if (v.change === null || v.noise === null) return v.reason ?? undefined;
  return `${v.change < 0 ? '−' : '+'}${points(v.change)} points, noise ±${points(v.noise)} (${run.valEpisodes} episodes per validation). How: ${VAL_VERDICT_METHOD}.`;
}

/** A finished run's verdict as a badge; the text is the statement, or "no verdict" with the reason as its tooltip. */
function VerdictBadge({ run, children }: { run: ValRun; children?: ReactNode }) {
  const v = run.valVerdict!;
  return (
    <span className={`badge verdict${v.verdict ? ` v-${v.verdict}` : ''}`} data-testid="val-verdict" title={verdictTitle(run)}>
      {children}
      {v.verdict ? VAL_VERDICT_LABELS[v.verdict] : 'no verdict'}
    </span>
  );
}

/** The run header's validation fact: first → last, the verdict with its noise, and the best set apart. */
export function ValSummary({ run }: { run: ValRun }) {
  if (run.valSuccessAtStart === null) return <>—</>;
  const v = run.valVerdict;
  return (
    <>
      {pct(run.valSuccessAtStart)} → {pct(run.valSuccessAtEnd)}
      {v ? (
        <>
          {' '}
          <VerdictBadge run={run} />{' '}
          <span className="muted small" data-testid="val-verdict-detail">
            {v.noise !== null ? `±${points(v.noise)} points is noise (${run.valEpisodes} episodes each)` : v.reason}
          </span>
        </>
      ) : (
        <span className="muted small"> so far</span>
      )}{' '}
      <span className="muted small" title={`Not used for the verdict: ${BEST_VAL_CAVEAT}.`} data-testid="val-best">
        · best {pct(run.bestValSuccess)}
      </span>
    </>
  );
}

/** The runs list's compact cell: "14% → 20% · no clear change" (no verdict while the run goes on). */
export function ValChange({ run }: { run: ValRun }) {
  if (run.valSuccessAtStart === null) return <>—</>;
  const change = `${wholePct(run.valSuccessAtStart)} → ${wholePct(run.valSuccessAtEnd)}`;
  return run.valVerdict ? <VerdictBadge run={run}>{change} · </VerdictBadge> : <span title="still running">{change}</span>;
}
