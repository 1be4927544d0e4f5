import { describe, expect, it } from 'vitest';
import { diagnoseTurn, extractClaims, garbledReason, precisionKey, PRECISION_GOAL, ruleTrust, sentenceForm } from '../src/index.js';
import { RULE_PRECISION } from '../src/diagnostics/rule-precision.js';
import { RULES } from '../src/diagnostics/rules.js';
import type { FrozenLakeSnapshot, SokobanSnapshot } from '../src/types.js';

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

const sokoban: SokobanSnapshot = {
  env: 'sokoban',
  fixed: ['######', '###__#', '###O_#', '###__#', '##___#', '######'],
  boxes: [[3, 3]],
  player: [4, 4],
  steps: 0,
  done: false,
  success: false,
};
const checkRoom = (think: string) =>
  diagnoseTurn({ env: 'sokoban', think, formatOk: true, answerActions: [], executed: [], effectiveCount: 0, before: sokoban, after: null });

describe('precision gate', () => {
  it("measures a rule per form of sentence: the teacher's fixed sentences apart from free text", () => {
    expect(sentenceForm('Box must go 1 up and 2 right.')).toBe('template');
    expect(sentenceForm('Goal at (1, 1), 2 up and 1 left')).toBe('template');
    expect(sentenceForm('Hole 1 up at (2, 1), 1 left at (3, 0)')).toBe('template');
    expect(sentenceForm('The box must go up twice')).toBe('free');
    expect(precisionKey('relation', 'free')).toBe('relation@free');
  });

  it('flags a template sentence that is wrong, with its held-out precision and sample size', () => {
    const trust = ruleTrust('box-must-go', 'template');
    expect(trust.trusted).toBe(true);
    // the target (2, 3) is 1 up of the box (3, 3), not down
    const d = checkRoom('Player at (4, 4). Box at (3, 3). Target at (2, 3). Box must go 1 down. Plan: Left, Up.');
    const wrong = d.claims.find((c) => c.verdict === 'contradicted')!;
    expect(wrong).toMatchObject({ rule: 'box-must-go', text: 'Box must go 1 down' });
    if (trust.trusted) expect([wrong.precision, wrong.precisionFlags]).toEqual([trust.precision, trust.flags]);
    expect(d.contradicted).toBe(1);
    expect(checkRoom('Player at (4, 4). Box at (3, 3). Target at (2, 3). Box must go 1 up. Plan: Left, Up.').contradicted).toBe(0);
  });

  it('shows a contradiction of a rule below the goal on held-out text as uncertain, apart from the flags', () => {
    const below = Object.entries(RULE_PRECISION).filter(([, m]) => m.right / m.flags < PRECISION_GOAL);
    expect(below.length).toBeGreaterThan(0);
    const think = 'There is a hole directly to my right.';
    const raw = check(think, false).claims[0]!;
    expect(raw).toMatchObject({ rule: 'relation', verdict: 'contradicted' });
    const gated = check(think).claims[0]!;
    if (ruleTrust('relation', 'free').trusted) expect(gated.verdict).toBe('contradicted');
    else {
      expect(gated).toMatchObject({ verdict: 'uncheckable', uncertain: true });
      expect(gated.evidence).toBe(raw.evidence);
      expect(gated.reason).toMatch(/^uncertain: the reading rule "relation" was right on \d+ of its \d+ contradictions on free text/);
      expect(check(think).contradicted).toBe(0);
    }
  });

  it('does not trust a rule that was never measured', () => {
    const t = ruleTrust('no-such-rule', 'free');
    expect(t.trusted).toBe(false);
    if (!t.trusted) expect(t.reason).toMatch(/no measured contradictions/);
  });
});

describe('text as it comes', () => {
  it('reads a garbled sentence as not checkable, never contradicted', () => {
    for (const [think, why] of [
      ['Player at (4, 4). Target at (3, 1 left. Plan: Left.', /never closed/],
      ['Box must go 1 left, Right3, Right3, Up.', /move run into a number/],
      ['Box at (1, Right(4, Down, Down, Right(4, 1)).', /never closed|move run into a number|word inside/],
      ['Player at (3 wall Right, 3).', /word inside|closing bracket/],
    ] as const) {
      const d = checkRoom(think);
      expect(d.contradicted, think).toBe(0);
      const garbled = d.claims.filter((c) => c.reason?.startsWith('not checkable: '));
      for (const c of garbled) expect(c.reason).toMatch(why);
    }
    expect(garbledReason('Box at (3, 3), on target.')).toBeNull();
    expect(garbledReason('The box (the one on the left) is at (2,3).')).toBeNull();
  });

  it('finishes on a refusal that names a place, not a move ("not above it" once read the same words forever)', () => {
    const d = checkRoom('Going Down would put me beside the box, not above it, so that is no use.');
    expect(d.v).toBe(1);
    expect(d.contradicted).toBe(0);
  });

  it('reads the direction words of a plan as moves, not as where things lie', () => {
    // "Goal it Down, Right" inside a plan is no claim that the target is down and right of the player
    const d = checkRoom('Plan: Down, Goal it Down, Right.');
    expect(d.contradicted).toBe(0);
  });
});
