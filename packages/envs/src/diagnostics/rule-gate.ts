// Precision first: a reading rule flags a contradiction only where its contradictions were measured
// right often enough on held-out text (labelled sets the rules were not tuned on), per form of
// sentence. Elsewhere its contradictions are shown as uncertain, apart from the flags. The
// measurements are in rule-precision.ts, written by `bench:diagnostics --write-rule-precision`.
import { RULE_PRECISION, RULE_PRECISION_DATA } from './rule-precision.js';
import type { SentenceForm } from './sentence-form.js';

/** The precision a rule's contradictions must have been measured at, on held-out text, to raise the flag. */
export const PRECISION_GOAL = 0.9;

export type RuleTrust = { trusted: true; precision: number; flags: number } | { trusted: false; reason: string };

export type PrecisionTable = Record<string, { flags: number; right: number }>;

/** Lower end of the 90% Wilson score interval of right/n: 2 of 2 gives 0.42, 51 of 51 gives 0.95. */
export function wilsonLower(right: number, n: number, z = 1.645): number {
  if (!n) return 0;
  const p = right / n;
  const centre = p + (z * z) / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return (centre - spread) / (1 + (z * z) / n);
}

/** The key of a rule's measurement: its name and the form of sentence it read. */
export const precisionKey = (rule: string | undefined, form: SentenceForm) => `${rule ?? '?'}@${form}`;

const FORM_WORDS: Record<SentenceForm, string> = { template: "the teacher's fixed sentences", free: 'free text' };

/** Whether the claims of `rule`, read from a sentence of this form, may contradict the board, and with what precision. */
export function ruleTrust(rule: string | undefined, form: SentenceForm, table: PrecisionTable = RULE_PRECISION): RuleTrust {
  const m = table[precisionKey(rule, form)];
  if (!m || !m.flags)
    return {
      trusted: false,
      reason: `uncertain: the reading rule "${rule ?? '?'}" has no measured contradictions on ${FORM_WORDS[form]} (${RULE_PRECISION_DATA})`,
    };
  const precision = m.right / m.flags;
  // a precision measured on a handful of flags says little: the gate reads its lower confidence bound
  if (wilsonLower(m.right, m.flags) < PRECISION_GOAL)
    return {
      trusted: false,
      reason: `uncertain: the reading rule "${rule}" was right on ${m.right} of its ${m.flags} contradictions on ${FORM_WORDS[form]}, too few or too often wrong to be sure of ${PRECISION_GOAL} (${RULE_PRECISION_DATA})`,
    };
  return { trusted: true, precision: Number(precision.toFixed(3)), flags: m.flags };
}

export interface MeasuredRule {
  rule: string;
  form: SentenceForm;
  flags: number;
  right: number;
  /** Its contradictions raise the flag (else they are shown as uncertain). */
  flagging: boolean;
}

/** Every rule and form measured on held-out text, flagging ones first, most measured first: what the Diagnostics tab lists. */
export function measuredRules(table: PrecisionTable = RULE_PRECISION): MeasuredRule[] {
  return Object.entries(table)
    .map(([key, m]) => {
      const [rule, form] = key.split('@') as [string, SentenceForm];
      return { rule, form, ...m, flagging: ruleTrust(rule, form, table).trusted };
    })
    .sort((a, b) => Number(b.flagging) - Number(a.flagging) || b.flags - a.flags);
}

export { RULE_PRECISION_DATA };
