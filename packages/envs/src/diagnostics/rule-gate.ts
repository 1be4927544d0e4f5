// Precision first: a reading rule whose contradictions were measured right less often than the goal
// does not raise the `hallucinated` flag: its contradictions are shown as not checked, with the reason. The
// measurements are in rule-precision.ts, written by `bench:diagnostics --write-rule-precision`.
import { RULE_PRECISION, RULE_PRECISION_DATA } from './rule-precision.js';

/** The precision a rule's contradictions must have been measured at for them to raise the flag. */
export const PRECISION_GOAL = 0.95;

export type RuleTrust = { trusted: true; precision: number; flags: number } | { trusted: false; reason: string };

/** Whether the claims of `rule` may contradict the board, and with what measured precision. */
export function ruleTrust(rule: string | undefined): RuleTrust {
  const m = rule ? RULE_PRECISION[rule] : undefined;
  if (!m || !m.flags)
    return {
      trusted: false,
      reason: `not checked: the reading rule "${rule ?? '?'}" has no measured contradictions (${RULE_PRECISION_DATA})`,
    };
  const precision = m.right / m.flags;
  if (precision < PRECISION_GOAL)
    return {
      trusted: false,
      reason: `not checked: the reading rule "${rule}" was right on ${m.right} of its ${m.flags} contradictions (precision ${precision.toFixed(2)} < ${PRECISION_GOAL}; ${RULE_PRECISION_DATA})`,
    };
  return { trusted: true, precision: Number(precision.toFixed(3)), flags: m.flags };
}
