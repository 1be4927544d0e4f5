import type { EnvSnapshot, FrozenLakeSnapshot, SokobanSnapshot } from '../types.js';
import type { Claim, Decision, OutcomeKind } from './claims.js';
import { extractClaims } from './extract.js';
import { ruleTrust, type PrecisionTable } from './rule-gate.js';
import { garbledReason, isPlanSentence, sentenceForm } from './sentence-form.js';
import { claimPattern, verifyClaim, type Verdict, type VerifyOptions } from './verify.js';
import { sameCell, World } from './world.js';

export interface ClaimResult {
  kind: Claim['kind'];
  pattern: string;
  /** The sentence of the think text, and where it is. */
  text: string;
  span: [number, number];
  negated: boolean;
  verdict: Verdict;
  /** Contradicted: what the board shows. */
  evidence?: string;
  /** Not checkable: why (a condition, the past, an ambiguous reading, an unclear convention…). */
  reason?: string;
  /** Checked claims: how sure the parse is. Only 'unambiguous' parses are ever contradicted. */
  confidence?: 'unambiguous';
  /** The reading rule that produced the claim (rules.ts). */
  rule?: string;
  /** Contradicted: how often this rule's contradictions were right on held-out text (rule-precision.ts)… */
  precision?: number;
  /** …out of how many. */
  precisionFlags?: number;
  /** The board disagrees, but the rule that read it is not measured precise enough to flag: shown apart from the flags. */
  uncertain?: true;
}

export type Consistency = 'consistent' | 'mismatch' | 'unknown';
export type OutcomeMatch = 'match' | 'mismatch' | 'unknown';

/** Stored with every turn (turns.diagnostics). */
export interface TurnDiagnostics {
  v: 1;
  claims: ClaimResult[];
  contradicted: number;
  checkable: number;
  /** Moves the think text decides on (first decision), lower case. */
  decided: string[];
  thinkAnswer: Consistency;
  thinkAnswerEvidence?: string;
  outcome: OutcomeMatch;
  outcomeEvidence?: string;
  thinkWords: number;
  /** Empty or a couple of words: no reasoning to speak of. */
  trivialThink: boolean;
  /** The same think text was written for a different state in the same step. */
  template: boolean;
}

export interface TurnInput {
  env: string;
  think: string;
  formatOk: boolean;
  /** The answer's actions as written (valid or not). */
  answerActions: string[];
  /** Actions the environment executed this turn. */
  executed: string[];
  effectiveCount: number;
  /** State before the turn. */
  before: EnvSnapshot;
  /** State after the turn (the next turn's snapshot, or the final one); null when unknown. */
  after: EnvSnapshot | null;
  /** Extra action names that are moves (the bandit's arms). */
  actionWords?: readonly string[];
  coordinateBase?: 0 | 1;
}

export interface DiagnoseOptions {
  /** false: every rule's contradictions count, measured precision or not (how bench:diagnostics measures the rules). */
  ruleGate?: boolean;
  /** Per-rule precision to gate with instead of the shipped one (rule-precision.ts): how the bench measures a gate on text it was not set from. */
  rulePrecision?: PrecisionTable;
}

export const DIAGNOSTIC_FLAGS = [
  'hallucinated',
  'think_answer_mismatch',
  'outcome_mismatch',
  'template_collapse',
  'reasoning_free_success',
] as const;
export type DiagnosticFlag = (typeof DIAGNOSTIC_FLAGS)[number];

const lower = (xs: string[]) => xs.map((x) => x.trim().toLowerCase());

/** The think's decision: the last firm one ("I pick Right", "answer: Left"), else the first. */
export function decidedMoves(decisions: Decision[]): string[] {
  const firm = decisions.filter((d) => !d.negated && d.firm);
  return (firm.length ? firm[firm.length - 1] : decisions.find((d) => !d.negated))?.moves ?? [];
}

const agrees = (moves: string[], answer: string[]) => moves.slice(0, answer.length).every((m, i) => m === answer[i]);

function thinkAnswer(decisions: Decision[], answer: string[], paths: string[][] = []): { verdict: Consistency; evidence?: string } {
  const decided = decidedMoves(decisions);
  const avoided = new Set(decisions.filter((d) => d.negated).flatMap((d) => d.moves));
  if (decided.length) {
    if (!answer.length) return { verdict: 'mismatch', evidence: `think decides ${decided.join(', ')}; the answer has no action` };
    if (agrees(decided, answer)) return { verdict: 'consistent' };
    // the think also states the answer's moves as a path ("Right, Right gets me there"): which one it meant is not clear
    const firm = decisions.some((d) => d.firm && !d.negated);
    const other = !firm && paths.some((m) => m.length && agrees(m, answer));
    if (other) return { verdict: 'unknown' };
    return { verdict: 'mismatch', evidence: `think decides ${decided.join(', ')}; the answer is ${answer.join(', ')}` };
  }
  if (avoided.size && answer.length) {
    if (avoided.has(answer[0]!))
      return { verdict: 'mismatch', evidence: `think rules out ${answer[0]}; the answer is ${answer.join(', ')}` };
    return { verdict: 'consistent' };
  }
  return { verdict: 'unknown' };
}

type Grid = SokobanSnapshot | FrozenLakeSnapshot;
const isGrid = (s: EnvSnapshot | null): s is Grid => !!s && (s.env === 'sokoban' || s.env === 'frozenlake');

/** Whether an outcome a think text predicted ("the box lands on the target") is what the step did. */
const OUTCOME_HAPPENED: Record<Exclude<OutcomeKind, 'reach_cell'>, (before: World, after: World, moved: boolean) => boolean> = {
  blocked: (_b, _a, moved) => !moved,
  fall: (_b, after) => after.inHole(),
  reach_goal: (_b, after) => after.onGoal(),
  box_on_target: (before, after) => after.boxesOnTarget() > before.boxesOnTarget(),
  push_box: (before, after) => JSON.stringify(after.positions('box')) !== JSON.stringify(before.positions('box')),
};

/** The think text's expectations (explicit outcome claims, else "the player moves") against what the environment did. */
function outcomeCheck(input: TurnInput, claims: Claim[], decided: string[]): { verdict: OutcomeMatch; evidence?: string } {
  if (!isGrid(input.before) || !isGrid(input.after) || !input.executed.length) return { verdict: 'unknown' };
  const before = new World(input.before);
  const after = new World(input.after);
  const first = input.executed[0]!.toLowerCase();
  const moved = !sameCell(before.positions('player')[0]!, after.positions('player')[0]!) || input.effectiveCount > 0;
  const outcomes = claims.filter((c) => c.kind === 'outcome' && c.outcome !== 'reach_cell' && (c.moves ?? decided)[0] === first);
  for (const c of outcomes) {
    if (c.kind !== 'outcome' || c.outcome === 'reach_cell') continue;
    const happened = OUTCOME_HAPPENED[c.outcome](before, after, moved);
    if (happened === c.negated) {
      const expected = `${c.negated ? 'not ' : ''}${c.outcome.replace(/_/g, ' ')}`;
      return { verdict: 'mismatch', evidence: `think expected ${expected} after ${first}; it ${happened ? 'happened' : 'did not happen'}` };
    }
  }
  if (!outcomes.length) {
    if (!decided.length || decided[0] !== first) return { verdict: 'unknown' };
    if (!moved) return { verdict: 'mismatch', evidence: `think expected ${first} to move the player; nothing moved` };
    if (after.inHole()) return { verdict: 'mismatch', evidence: `the player fell into a hole, which the think did not foresee` };
  }
  return { verdict: 'match' };
}

/** A claim the checker cannot evaluate is not checkable; model text never crashes the check. */
function safeVerify(w: World, c: Claim, opts: VerifyOptions): ReturnType<typeof verifyClaim> {
  try {
    return verifyClaim(w, c, opts);
  } catch {
    return { verdict: 'uncheckable', evidence: 'the checker could not evaluate this claim' };
  }
}

const hasCoordinates = (c: Claim) => 'cell' in c && !!c.cell;

/** Would the claim hold with the coordinates read the other way round, or from the other base? */
function flipsUnderOtherConvention(w: World, c: Claim, opts: VerifyOptions): boolean {
  if (!('cell' in c) || !c.cell) return false;
  const [r, col] = c.cell;
  const readings: [number, number][] = [
    [col, r],
    [r + 1, col + 1],
    [r - 1, col - 1],
    [col + 1, r + 1],
    [col - 1, r - 1],
  ];
  return readings.some((cell) => verifyClaim(w, { ...c, cell } as Claim, opts).verdict === 'supported');
}

/** What a result says of its claim, before any verdict. */
const claimBase = (c: Claim, think: string) => ({
  kind: c.kind,
  pattern: claimPattern(c),
  text: think.slice(c.span[0], c.span[1]),
  span: c.span,
  negated: c.negated,
  ...(c.rule ? { rule: c.rule } : {}),
});

/**
 * An environment with no checker here (served through the protocol): the claims a grid's grammar
 * finds, each not checkable. Which grid's words hardly matter, since none is checked.
 */
function withoutChecker(think: string, name: string): ClaimResult[] {
  return extractClaims(think, 'frozenlake').claims.map((c) => ({
    ...claimBase(c, think),
    verdict: 'uncheckable' as const,
    reason: `not checkable: ${name} has no checker`,
  }));
}

const wordCount = (s: string) => (s.match(/[\p{L}\p{N}]+/gu) ?? []).length;

/** Every check of one turn. `template` is filled in by `markTemplates` across a step. */
export function diagnoseTurn(input: TurnInput, options: DiagnoseOptions = {}): TurnDiagnostics {
  const gate = options.ruleGate !== false;
  const env = input.env === 'sokoban' || input.env === 'frozenlake' ? input.env : 'bandit';
  const think = input.formatOk ? input.think : '';
  const { claims, decisions, convention, paths } = extractClaims(think, env, input.actionWords ?? [], input.coordinateBase ?? 0);
  const answer = lower(input.answerActions);
  const decided = decidedMoves(decisions);
  const world = isGrid(input.before) ? new World(input.before) : null;
  const opts = { coordinateBase: convention.base ?? input.coordinateBase ?? 0, decidedMoves: decided.length ? decided : answer };
  const results: ClaimResult[] = world
    ? claims.map((c) => {
        let checked = safeVerify(world, c, opts);
        // the text speaks of axes or indexing without saying how: a verdict that another reading flips is not checkable
        if (checked.verdict === 'contradicted' && convention.unclear && hasCoordinates(c) && flipsUnderOtherConvention(world, c, opts))
          checked = { verdict: 'uncheckable', evidence: 'unclear coordinate convention: another reading makes it true' };
        const base = claimBase(c, think);
        // a fragment is never contradicted, and a plan's direction words are moves, not places
        const unreadable = garbledReason(base.text) ?? (c.kind === 'relation' && isPlanSentence(base.text) ? 'a plan lists moves' : null);
        if (unreadable) return { ...base, verdict: 'uncheckable' as const, reason: `not checkable: ${unreadable}` };
        if (checked.verdict === 'uncheckable')
          return { ...base, verdict: checked.verdict, ...(checked.evidence ? { reason: checked.evidence } : {}) };
        // precision first: a contradiction from a rule not measured right often enough on held-out text is uncertain, not a flag
        const trust = gate && checked.verdict === 'contradicted' ? ruleTrust(c.rule, sentenceForm(base.text), options.rulePrecision) : null;
        if (trust && !trust.trusted)
          return { ...base, verdict: 'uncheckable' as const, uncertain: true, reason: trust.reason, evidence: checked.evidence };
        return {
          ...base,
          verdict: checked.verdict,
          confidence: 'unambiguous' as const,
          ...(checked.evidence && checked.verdict === 'contradicted' ? { evidence: checked.evidence } : {}),
          ...(trust?.trusted ? { precision: trust.precision, precisionFlags: trust.flags } : {}),
        };
      })
    : input.before?.env === 'text'
      ? withoutChecker(think, input.before.name)
      : [];
  const ta = input.formatOk ? thinkAnswer(decisions, answer, paths) : { verdict: 'unknown' as const };
  const oc = input.formatOk
    ? outcomeCheck(
        input,
        claims.filter((c) => !c.unsure),
        decided,
      )
    : { verdict: 'unknown' as const };
  const words = wordCount(think);
  return {
    v: 1,
    claims: results,
    contradicted: results.filter((r) => r.verdict === 'contradicted').length,
    checkable: results.filter((r) => r.verdict !== 'uncheckable').length,
    decided,
    thinkAnswer: ta.verdict,
    ...(ta.evidence ? { thinkAnswerEvidence: ta.evidence } : {}),
    outcome: oc.verdict,
    ...(oc.evidence ? { outcomeEvidence: oc.evidence } : {}),
    thinkWords: words,
    trivialThink: words < 3,
    template: false,
  };
}

/** Near-identical: the same words in the same order, ignoring case, spacing and punctuation. */
export function thinkKey(think: string): string {
  return think
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export interface StepTurn {
  think: string;
  state: EnvSnapshot;
  diagnostics: TurnDiagnostics;
}

/** What template collapse compares of a well-formed turn with a known state: its think key and its state as JSON. */
export interface TemplateKeys {
  think: string;
  state: string;
}

export function templateKeys(think: string, state: EnvSnapshot): TemplateKeys {
  return { think: thinkKey(think), state: JSON.stringify(state) };
}

/** Distinct thinks over distinct states of a step, at most 1 (1 for a step without such turns). */
export function distinctThinkRatio(thinks: number, states: number): number {
  return states ? Math.min(1, thinks / states) : 1;
}

/** Each think key's distinct states: a key with more than one is a template. */
export function statesByThink(keys: Iterable<TemplateKeys>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const k of keys) {
    let seen = out.get(k.think);
    if (!seen) out.set(k.think, (seen = new Set()));
    seen.add(k.state);
  }
  return out;
}

/**
 * Template collapse within a step: marks turns whose think text was also written for a different
 * state, and returns the distinct-think ratio (distinct thinks / distinct states, at most 1).
 */
export function markTemplates(turns: StepTurn[]): number {
  const keys = turns.map((t) => templateKeys(t.think, t.state));
  const byThink = statesByThink(keys);
  turns.forEach((t, i) => (t.diagnostics.template = byThink.get(keys[i]!.think)!.size > 1));
  return distinctThinkRatio(byThink.size, new Set(keys.map((k) => k.state)).size);
}

export interface DiagnosedTrajectory {
  success: boolean;
  turns: TurnDiagnostics[];
}

/** The flags of a trajectory, from its turns' diagnostics. */
export function trajectoryFlags(t: DiagnosedTrajectory): DiagnosticFlag[] {
  const flags: DiagnosticFlag[] = [];
  if (t.turns.some((d) => d.contradicted > 0)) flags.push('hallucinated');
  if (t.turns.some((d) => d.thinkAnswer === 'mismatch')) flags.push('think_answer_mismatch');
  if (t.turns.some((d) => d.outcome === 'mismatch')) flags.push('outcome_mismatch');
  if (t.turns.some((d) => d.template)) flags.push('template_collapse');
  if (t.success && t.turns.length && t.turns.every((d) => d.trivialThink)) flags.push('reasoning_free_success');
  return flags;
}

const rate = (num: number, den: number) => (den ? num / den : 0);

/**
 * What a batch's diagnostic metrics are made of: counts that add up over its checked trajectories,
 * so a batch's metrics can be kept as running sums while trajectories join it one at a time.
 */
export interface DiagnosisTally {
  trajectories: number;
  hallucinated: number;
  contradicted: number;
  checkable: number;
  claims: number;
  turns: number;
  thinkAnswerKnown: number;
  thinkAnswerMismatch: number;
  outcomeKnown: number;
  outcomeMismatch: number;
  templateTurns: number;
  successes: number;
  reasoningFreeSuccesses: number;
}

const count = <T>(xs: T[], f: (x: T) => boolean) => xs.reduce((n, x) => n + (f(x) ? 1 : 0), 0);
const total = <T>(xs: T[], f: (x: T) => number) => xs.reduce((n, x) => n + f(x), 0);

/** One checked trajectory's share of its batch's tally (its template marks as they stand). */
export function trajectoryTally(t: DiagnosedTrajectory, flags: DiagnosticFlag[] = trajectoryFlags(t)): DiagnosisTally {
  const turns = t.turns;
  return {
    trajectories: 1,
    hallucinated: flags.includes('hallucinated') ? 1 : 0,
    contradicted: total(turns, (d) => d.contradicted),
    checkable: total(turns, (d) => d.checkable),
    claims: total(turns, (d) => d.claims.length),
    turns: turns.length,
    thinkAnswerKnown: count(turns, (d) => d.thinkAnswer !== 'unknown'),
    thinkAnswerMismatch: count(turns, (d) => d.thinkAnswer === 'mismatch'),
    outcomeKnown: count(turns, (d) => d.outcome !== 'unknown'),
    outcomeMismatch: count(turns, (d) => d.outcome === 'mismatch'),
    templateTurns: count(turns, (d) => d.template),
    successes: t.success ? 1 : 0,
    reasoningFreeSuccesses: flags.includes('reasoning_free_success') ? 1 : 0,
  };
}

/** `a + sign × b`, field by field (a trajectory joins a batch with +1 and leaves it with -1). */
export function addTallies(a: DiagnosisTally, b: DiagnosisTally, sign: 1 | -1 = 1): DiagnosisTally {
  const out = { ...a };
  for (const k of Object.keys(out) as (keyof DiagnosisTally)[]) out[k] += sign * b[k];
  return out;
}

export const EMPTY_TALLY: DiagnosisTally = Object.freeze({
  trajectories: 0,
  hallucinated: 0,
  contradicted: 0,
  checkable: 0,
  claims: 0,
  turns: 0,
  thinkAnswerKnown: 0,
  thinkAnswerMismatch: 0,
  outcomeKnown: 0,
  outcomeMismatch: 0,
  templateTurns: 0,
  successes: 0,
  reasoningFreeSuccesses: 0,
});

/** Per-step diagnostic metrics under `${prefix}/diag/…` from a batch's tally (none for a batch with no checked trajectory). */
export function tallyMetrics(t: DiagnosisTally, distinctThinkRatio: number, prefix: string): Record<string, number> {
  if (!t.trajectories) return {};
  const p = `${prefix}/diag`;
  return {
    [`${p}/hallucination_rate`]: rate(t.hallucinated, t.trajectories),
    [`${p}/contradicted_claim_rate`]: rate(t.contradicted, t.checkable),
    [`${p}/claims_per_turn`]: rate(t.claims, t.turns),
    [`${p}/think_answer_mismatch_rate`]: rate(t.thinkAnswerMismatch, t.thinkAnswerKnown),
    [`${p}/outcome_mismatch_rate`]: rate(t.outcomeMismatch, t.outcomeKnown),
    [`${p}/distinct_think_ratio`]: distinctThinkRatio,
    [`${p}/template_rate`]: rate(t.templateTurns, t.turns),
    [`${p}/reasoning_free_success_rate`]: rate(t.reasoningFreeSuccesses, t.successes),
  };
}

/** Per-step diagnostic metrics of a batch, under `${prefix}/diag/…`. */
export function diagnosticsMetrics(
  trajs: DiagnosedTrajectory[],
  distinctThinkRatio: number,
  prefix: string,
  flags: DiagnosticFlag[][] = trajs.map(trajectoryFlags),
): Record<string, number> {
  const tally = trajs.reduce((sum, t, i) => addTallies(sum, trajectoryTally(t, flags[i])), EMPTY_TALLY);
  return tallyMetrics(tally, distinctThinkRatio, prefix);
}
