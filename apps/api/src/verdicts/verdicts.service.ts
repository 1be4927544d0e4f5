import { Inject, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import {
  type ClaimVerdictInput,
  ValidationError,
  type ClaimVerdictView,
  type TeamVerdictSummary,
  type VerdictPrecision,
} from '@starpo/contracts';
import type { Db } from '@starpo/db';
import type { Actor } from '../auth/actor.js';
import { DB } from '../di-tokens.js';
import { isUuid } from '../validation.js';

interface StoredClaim {
  span: [number, number];
  verdict: string;
  rule?: string;
}
const claimsOf = (diagnostics: unknown): StoredClaim[] =>
  ((diagnostics as { claims?: StoredClaim[] } | null)?.claims ?? []).filter((c) => Array.isArray(c.span));
const flaggedAt = (claims: StoredClaim[], span: [number, number]) =>
  claims.find((c) => c.verdict === 'contradicted' && c.span[0] === span[0] && c.span[1] === span[1]);

const precisionOf = (right: number, wrong: number): VerdictPrecision => ({
  right,
  wrong,
  precision: right + wrong ? right / (right + wrong) : null,
});

type Row = {
  id: string;
  trajectoryId: string;
  turn: number;
  spanStart: number;
  spanEnd: number;
  flagged: boolean;
  rule: string | null;
  verdict: string;
  note: string | null;
  createdAt: Date;
  user: { id: string; email: string };
};
const view = (r: Row): ClaimVerdictView => ({
  id: r.id,
  trajectoryId: r.trajectoryId,
  turn: r.turn,
  span: [r.spanStart, r.spanEnd],
  flagged: r.flagged,
  rule: r.rule,
  verdict: r.verdict as 'right' | 'wrong',
  note: r.note,
  user: r.user,
  createdAt: r.createdAt.toISOString(),
});
const withUser = { user: { select: { id: true, email: true } } } as const;

/**
 * A team's verdicts on the reasoning checker's flags: members mark a flagged sentence right or
 * wrong (or an unflagged one wrong); the checker's precision on them, per reading rule; and the
 * verdicts as a labelled set in the held-out rounds' format, for `bench:diagnostics --set`.
 */
@Injectable()
export class VerdictsService {
  constructor(@Inject(DB) private readonly db: Db) {}

  async mark(actor: Actor, trajectoryId: string, turnParam: string, input: ClaimVerdictInput): Promise<ClaimVerdictView> {
    const turn = Number(turnParam);
    if (!/^\d{1,9}$/.test(turnParam)) throw new ValidationError([{ path: 'turn', message: 'a turn index (0, 1, …)' }], 'path');
    const t = isUuid(trajectoryId)
      ? await this.db.turn.findFirst({
          where: { trajectoryId, index: turn, trajectory: { run: { teamId: actor.teamId } } },
          select: { think: true, diagnostics: true },
        })
      : null;
    if (!t) throw new NotFoundException(`turn ${turn} of trajectory ${trajectoryId} not found`);
    const [start, end] = input.span;
    if (end <= start || end > t.think.length)
      throw new ValidationError([{ path: 'span', message: `not a span of the think text (0–${t.think.length})` }], 'body');
    const flagged = flaggedAt(claimsOf(t.diagnostics), input.span);
    if (!flagged && input.verdict === 'right')
      throw new UnprocessableEntityException('the checker did not flag this sentence; an unflagged sentence can only be marked wrong');
    const data = {
      spanEnd: end,
      flagged: !!flagged,
      rule: flagged?.rule ?? null,
      verdict: input.verdict,
      note: input.note ?? null,
      userId: actor.userId,
      createdAt: new Date(),
    };
    const row = await this.db.claimVerdict.upsert({
      where: { teamId_trajectoryId_turn_spanStart: { teamId: actor.teamId, trajectoryId, turn, spanStart: start } },
      create: { teamId: actor.teamId, trajectoryId, turn, spanStart: start, ...data },
      update: data,
      include: withUser,
    });
    return view(row);
  }

  async list(actor: Actor, trajectoryId: string): Promise<ClaimVerdictView[]> {
    if (!isUuid(trajectoryId)) throw new NotFoundException(`trajectory ${trajectoryId} not found`);
    const rows = await this.db.claimVerdict.findMany({
      where: { teamId: actor.teamId, trajectoryId },
      include: withUser,
      orderBy: [{ turn: 'asc' }, { spanStart: 'asc' }],
    });
    return rows.map(view);
  }

  /** The checker's precision on this team's verdicts: flags marked right over flags marked, overall and per rule. */
  async summary(actor: Actor): Promise<TeamVerdictSummary> {
    const groups = await this.db.claimVerdict.groupBy({
      by: ['rule', 'flagged', 'verdict'],
      where: { teamId: actor.teamId },
      _count: { _all: true },
    });
    const rules = new Map<string, { right: number; wrong: number }>();
    let right = 0;
    let wrong = 0;
    let missed = 0;
    for (const g of groups) {
      const n = g._count._all;
      if (!g.flagged) {
        if (g.verdict === 'wrong') missed += n;
        continue;
      }
      const r = rules.get(g.rule ?? '?') ?? { right: 0, wrong: 0 };
      rules.set(g.rule ?? '?', r);
      if (g.verdict === 'right') {
        r.right += n;
        right += n;
      } else {
        r.wrong += n;
        wrong += n;
      }
    }
    return {
      overall: precisionOf(right, wrong),
      rules: [...rules.entries()]
        .map(([rule, r]) => ({ rule, ...precisionOf(r.right, r.wrong) }))
        .sort((a, b) => b.right + b.wrong - (a.right + a.wrong) || a.rule.localeCompare(b.rule)),
      missed,
    };
  }

  /**
   * The team's verdicts as labelled think texts, one JSON a line, in the held-out rounds' format. A
   * sentence is false when its flag was marked right or it was marked missed; a turn is contradicted
   * when one is, and not contradicted only when every sentence the checker flagged was marked wrong
   * (otherwise its label is unknown and the turn is left out).
   */
  async export(actor: Actor): Promise<object[]> {
    const verdicts = await this.db.claimVerdict.findMany({
      where: { teamId: actor.teamId },
      include: withUser,
      orderBy: [{ trajectoryId: 'asc' }, { turn: 'asc' }, { spanStart: 'asc' }],
    });
    const byTurn = new Map<string, Row[]>();
    for (const v of verdicts) {
      const key = `${v.trajectoryId}:${v.turn}`;
      byTurn.set(key, [...(byTurn.get(key) ?? []), v]);
    }
    const out: object[] = [];
    for (const [key, vs] of byTurn) {
      const t = await this.db.turn.findUnique({
        where: { trajectoryId_index: { trajectoryId: vs[0]!.trajectoryId, index: vs[0]!.turn } },
        select: { think: true, answer: true, parsedActions: true, stateSnapshot: true, diagnostics: true },
      });
      const state = t?.stateSnapshot as { env?: string } | null;
      if (!t || !state?.env) continue;
      const isFalse = (v: Row) => (v.flagged ? v.verdict === 'right' : v.verdict === 'wrong');
      const contradicted = vs.some(isFalse);
      const flaggedSpans = claimsOf(t.diagnostics).filter((c) => c.verdict === 'contradicted');
      const allFlagsWrong = flaggedSpans.every((c) => vs.some((v) => v.spanStart === c.span[0] && v.flagged && v.verdict === 'wrong'));
      if (!contradicted && !allFlagsWrong) continue;
      out.push({
        id: key,
        env: state.env,
        state,
        think: t.think,
        answer: t.parsedActions.length ? t.parsedActions.join(' || ') : t.answer,
        claims: vs.map((v) => ({ text: t.think.slice(v.spanStart, v.spanEnd), verdict: isFalse(v) ? 'false' : 'true' })),
        contradicted,
        kinds: ['team'],
        verdicts: vs.map((v) => ({
          span: [v.spanStart, v.spanEnd],
          flagged: v.flagged,
          rule: v.rule,
          verdict: v.verdict,
          note: v.note,
          by: v.user.email,
          at: v.createdAt.toISOString(),
        })),
      });
    }
    return out;
  }
}
