'use client';
import type { ClaimResult } from '@starpo/envs';
import type { ReactNode } from 'react';
import { flagPrecision } from '../lib/claim-precision';

interface Marked {
  span: [number, number];
  claims: ClaimResult[];
}

/** Claims grouped by the sentence they come from, in text order; overlapping sentences merge. */
function sentences(claims: ClaimResult[]): Marked[] {
  const bySpan = new Map<string, Marked>();
  for (const c of claims) {
    const k = c.span.join(':');
    if (!bySpan.has(k)) bySpan.set(k, { span: c.span, claims: [] });
    bySpan.get(k)!.claims.push(c);
  }
  return [...bySpan.values()].sort((a, b) => a.span[0] - b.span[0]).filter((m, i, all) => i === 0 || m.span[0] >= all[i - 1]!.span[1]);
}

/**
 * The think text with each sentence that makes a claim marked: contradicted ones highlighted
 * with the truth right after them, uncertain ones (a rule not precise enough to flag) with a question
 * mark, supported ones underlined, not checkable ones (garbled, a plan, a condition…) muted.
 */
export function ThinkText({ think, claims }: { think: string; claims: ClaimResult[] }) {
  const out: ReactNode[] = [];
  let at = 0;
  for (const m of sentences(claims)) {
    const [s, e] = m.span;
    if (s < at || e > think.length) continue;
    out.push(think.slice(at, s));
    const wrong = m.claims.filter((c) => c.verdict === 'contradicted');
    const checked = m.claims.some((c) => c.verdict === 'supported');
    const text = think.slice(s, e);
    if (wrong.length) {
      out.push(
        <mark key={s} className="claim contradicted" data-testid="contradicted-claim" title={wrong.map((c) => c.pattern).join('; ')}>
          {text}
        </mark>,
        <span key={`${s}-truth`} className="truth" data-testid="claim-truth">
          {' '}
          ✗ {[...new Set(wrong.map((c) => c.evidence ?? c.pattern))].join('; ')}
          {wrong[0]!.precision !== undefined ? ` (rule ${wrong[0]!.rule}: ${flagPrecision(wrong[0]!)})` : ''}
        </span>,
      );
    } else if (m.claims.some((c) => c.uncertain)) {
      // the board disagrees, but the rule that read it is not measured precise enough to flag
      const doubt = m.claims.filter((c) => c.uncertain);
      out.push(
        <span key={s} className="claim uncertain" data-testid="uncertain-claim" title={doubt.map((c) => c.reason).join('; ')}>
          {text}
        </span>,
        <span key={`${s}-doubt`} className="muted">
          {' '}
          ? uncertain: {[...new Set(doubt.map((c) => c.evidence ?? c.pattern))].join('; ')}
        </span>,
      );
    } else if (checked) {
      out.push(
        <span key={s} className="claim supported" title={`supported: ${m.claims.map((c) => c.pattern).join('; ')}`}>
          {text}
        </span>,
      );
    } else if (m.claims.length) {
      // every claim here was skipped (a condition, the past, an ambiguous reading): shown muted with the reasons
      const why = [...new Set(m.claims.map((c) => `${c.pattern}: ${c.reason ?? c.evidence ?? 'not checkable'}`))].join('; ');
      out.push(
        <span key={s} className="claim uncheckable muted" data-testid="uncheckable-claim" title={`not checked: ${why}`}>
          {text}
        </span>,
      );
    } else out.push(text);
    at = e;
  }
  out.push(think.slice(at));
  return <>{out}</>;
}
