import { describe, expect, it } from 'vitest';
import { diagnoseTurn, extractClaims, PRECISION_GOAL, ruleTrust } from '../src/index.js';
import { RULE_PRECISION } from '../src/diagnostics/rule-precision.js';
import { RULES } from '../src/diagnostics/rules.js';
import type { FrozenLakeSnapshot } from '../src/types.js';

const lake: FrozenLakeSnapshot = { env: 'frozenlake', map: ['SFFF', 'FHFH', 'FFFH', 'HFFG'], player: [0, 0], done: false, success: false };
const check = (think: string, ruleGate?: boolean) =>
  diagnoseTurn(
    { env: 'frozenlake', think, formatOk: true, answerActions: [], executed: [], effectiveCount: 0, before: lake, after: null },
    ruleGate === undefined ? {} : { ruleGate },
  );

describe('reading rules', () => {
  it('stamps every claim with the rule that read it and the tokens it read', () => {
    const names = new Set(RULES.map((r) => r.name));
    const { claims } = extractClaims(
      'The goal is at (3, 3). There is a hole directly below me, 2 holes in row 1. Down, Right reaches the goal.',
      'frozenlake',
    );
    expect(claims.length).toBeGreaterThanOrEqual(3);
    for (const c of claims) {
      expect(typeof c.rule).toBe('string');
      // a finer name than its table entry ("relation-after-moves") or the entry's own
      expect(names.has(c.rule!) || /-/.test(c.rule!)).toBe(true);
      expect(c.tokens![1]).toBeGreaterThan(c.tokens![0]);
    }
    expect(claims.map((c) => c.rule)).toEqual(expect.arrayContaining(['coordinate', 'relation', 'count']));
  });
});

describe('precision gate', () => {
  it('lets a rule measured at or above the goal contradict, carrying its measured precision', () => {
    const trust = ruleTrust('relation');
    expect(trust.trusted).toBe(true);
    const d = check('There is a hole directly to my right.');
    expect(d.claims[0]).toMatchObject({ rule: 'relation', verdict: 'contradicted' });
    if (trust.trusted) expect(d.claims[0]!.precision).toBe(trust.precision);
    expect(d.contradicted).toBe(1);
  });

  it('shows the claims of a rule below the goal as not checked, with the reason', () => {
    const below = Object.entries(RULE_PRECISION).filter(([, m]) => m.right / m.flags < PRECISION_GOAL);
    expect(below.length).toBeGreaterThan(0);
    const think = 'The cell to my right is a hole.';
    const raw = check(think, false).claims[0]!;
    expect(raw).toMatchObject({ rule: 'cell-talk', verdict: 'contradicted' });
    const gated = check(think).claims[0]!;
    if (ruleTrust('cell-talk').trusted) expect(gated.verdict).toBe('contradicted');
    else {
      expect(gated.verdict).toBe('uncheckable');
      expect(gated.reason).toMatch(/^not checked: the reading rule "cell-talk" was right on \d+ of its \d+ contradictions/);
      expect(check(think).contradicted).toBe(0);
    }
  });

  it('does not trust a rule that was never measured', () => {
    const t = ruleTrust('no-such-rule');
    expect(t.trusted).toBe(false);
    if (!t.trusted) expect(t.reason).toMatch(/no measured contradictions/);
  });
});
