import { measuredRules, RULE_PRECISION_DATA } from '@starpo/envs';

const FORM = { template: 'fixed sentences', free: 'free text' } as const;
const line = (r: { rule: string; form: keyof typeof FORM; flags: number; right: number }) =>
  `${r.rule} on ${FORM[r.form]} ${Math.round((100 * r.right) / r.flags)}% of ${r.flags}`;

// the measurements ship with the checker: read once, not on every render
const RULES = measuredRules();
const FLAGGING = RULES.filter((r) => r.flagging);
const UNCERTAIN = RULES.filter((r) => !r.flagging);

/**
 * How often each reading rule's contradictions were right on held-out text (never the development
 * set), with the sample behind each figure: which rules raise flags and which are only shown as uncertain.
 */
export function HeldOutPrecision() {
  return (
    <div className="panel facts" data-testid="heldout-precision">
      <span title={`contradictions each rule raised that labellers marked false, ${RULE_PRECISION_DATA}`}>
        <b>Checker precision on held-out text</b> <span className="muted">({RULE_PRECISION_DATA})</span>
      </span>
      <span data-testid="heldout-flagging">flags: {FLAGGING.map(line).join(' · ') || 'none'}</span>
      <span className="muted" data-testid="heldout-uncertain">
        shown as uncertain: {UNCERTAIN.map(line).join(' · ') || 'none'}
      </span>
    </div>
  );
}
