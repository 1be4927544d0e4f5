'use client';
import { useApi } from '../lib/api';
import { useTeamPrecision } from '../lib/queries';

const pct = (p: number | null) => (p === null ? '–' : `${(p * 100).toFixed(0)}%`);

/** The reasoning checker's precision on this team's verdicts, overall and per reading rule, with the counts behind it. */
export function TeamPrecision() {
  const { base } = useApi();
  const { data, error } = useTeamPrecision();
  if (error) return <p className="error">{error.message}</p>;
  if (!data) return null;
  const n = data.overall.right + data.overall.wrong;
  return (
    <div className="panel facts" data-testid="team-precision">
      <span title="flags your team marked right, of the flags it marked">
        <b>Checker precision on your team&apos;s verdicts</b> {pct(data.overall.precision)}{' '}
        <span className="muted">
          ({data.overall.right} of {n} flags right)
        </span>
      </span>
      {data.rules.map((r) => (
        <span key={r.rule} data-testid="team-precision-rule">
          rule {r.rule} {pct(r.precision)}{' '}
          <span className="muted">
            ({r.right} of {r.right + r.wrong})
          </span>
        </span>
      ))}
      <span>
        missed <b>{data.missed}</b>
      </span>
      <a href={`${base}/api/verdicts.jsonl`} download="verdicts.jsonl">
        export verdicts (JSONL)
      </a>
    </div>
  );
}
