'use client';
import type { ClaimResult } from '@starpo/envs';
import { useState } from 'react';
import { useMarkVerdict, useMe, useTeamPrecision, useVerdicts } from '../lib/queries';
import { flagPrecision } from '../lib/claim-precision';
import { denied } from '../lib/roles';
import { useAction } from '../lib/use-action';
import { Gated } from './Gated';

interface Sentence {
  span: [number, number];
  flagged: ClaimResult | undefined;
}

/** The sentences the checker read in a turn, flagged ones first; overlapping spans keep the first. */
function readSentences(claims: ClaimResult[]): Sentence[] {
  const bySpan = new Map<string, Sentence>();
  for (const c of claims) {
    const k = c.span.join(':');
    const s = bySpan.get(k) ?? { span: c.span, flagged: undefined };
    if (c.verdict === 'contradicted' && !s.flagged) s.flagged = c;
    bySpan.set(k, s);
  }
  return [...bySpan.values()].sort((a, b) => Number(!!b.flagged) - Number(!!a.flagged) || a.span[0] - b.span[0]);
}

/**
 * The team's verdicts on one turn: each sentence the checker read, with its flag (and the reading
 * rule's measured precision), the verdict given (who, when, note) and, for members, buttons to mark
 * the flag right or wrong, or an unflagged sentence as a missed falsehood. Most unflagged sentences
 * are true, so marking one missed is a quiet link that asks for a confirmation first.
 */
export function SentenceVerdicts({
  trajectoryId,
  turn,
  think,
  claims,
}: {
  trajectoryId: string;
  turn: number;
  think: string;
  claims: ClaimResult[];
}) {
  const me = useMe();
  const { data } = useVerdicts(trajectoryId);
  const team = useTeamPrecision(); // asked again with the verdicts after each mark
  const markVerdict = useMarkVerdict(trajectoryId);
  const { error, run } = useAction();
  const [note, setNote] = useState('');
  /** The unflagged sentence (its start) whose "missed" mark waits for a confirmation. */
  const [confirming, setConfirming] = useState<number | null>(null);
  const why = denied(me, 'judge');
  const sentences = readSentences(claims);
  if (!sentences.length) return null;
  const mark = async (span: [number, number], verdict: 'right' | 'wrong') => {
    const sent = note;
    setConfirming(null);
    // a note belongs to the verdict it was sent with: cleared once that one is stored (unless edited meanwhile)
    if (await run(() => markVerdict.mutateAsync({ turn, span, verdict, ...(sent ? { note: sent } : {}) })))
      setNote((n) => (n === sent ? '' : n));
  };
  return (
    <div className="verdicts" data-testid="verdicts">
      <h3>Team verdicts on the checker</h3>
      <ul>
        {sentences.map((s) => {
          const v = data?.find((x) => x.turn === turn && x.span[0] === s.span[0]);
          const text = think.slice(s.span[0], s.span[1]);
          const precision = s.flagged ? flagPrecision(s.flagged, team.data) : '';
          return (
            <li key={s.span[0]} data-testid="verdict-row">
              <span className={s.flagged ? 'claim contradicted' : undefined}>{text}</span>{' '}
              {s.flagged ? (
                <span className="muted">
                  flagged by rule {s.flagged.rule ?? '?'}
                  {precision ? `, ${precision}` : ''}
                </span>
              ) : (
                <span className="muted">not flagged</span>
              )}{' '}
              {v ? (
                <span data-testid="verdict">
                  <b>{v.flagged ? `flag ${v.verdict}` : 'missed'}</b> · {v.user.email}, {new Date(v.createdAt).toLocaleString()}
                  {v.note ? ` · ${v.note}` : ''}
                </span>
              ) : null}{' '}
              <Gated reason={why}>
                {s.flagged ? (
                  <>
                    <button className="small" disabled={!!why} onClick={() => void mark(s.span, 'right')}>
                      flag right
                    </button>{' '}
                    <button className="small" disabled={!!why} onClick={() => void mark(s.span, 'wrong')}>
                      flag wrong
                    </button>
                  </>
                ) : confirming === s.span[0] ? (
                  <span role="group" aria-label="confirm the missed falsehood" data-testid="confirm-missed">
                    Mark this sentence false, a falsehood the checker missed?{' '}
                    <button className="small" onClick={() => void mark(s.span, 'wrong')}>
                      yes, mark missed
                    </button>{' '}
                    <button className="link small" onClick={() => setConfirming(null)}>
                      cancel
                    </button>
                  </span>
                ) : (
                  <button className="link small" disabled={!!why} onClick={() => setConfirming(s.span[0])}>
                    missed: this is false…
                  </button>
                )}
              </Gated>
            </li>
          );
        })}
      </ul>
      <label>
        Note for the next verdict <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} disabled={!!why} />
      </label>
      {error ? <p className="error">{error}</p> : null}
    </div>
  );
}
