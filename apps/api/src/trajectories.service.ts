import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  ValidationError,
  type DiagnosticsQuery,
  type TrajectoriesQuery,
  type ClaimExample,
  type DiagnosticsSummary,
  type Page,
  type TrajectoryDetail,
  type TrajectorySummary,
} from '@starpo/contracts';
import { diagnosticsSummary, type Db, type Prisma, type Trajectory } from '@starpo/db';
import type { Actor } from './auth/actor.js';
import { DB } from './di-tokens.js';
import { isUuid } from './validation.js';

/** A listing's filters; the export takes them without the page's limit and cursor. */
type TrajectoryFilter = Omit<TrajectoriesQuery, 'limit' | 'cursor'> & Partial<Pick<TrajectoriesQuery, 'limit' | 'cursor'>>;

@Injectable()
export class TrajectoriesService {
  constructor(@Inject(DB) private readonly db: Db) {}

  /** Filtered, step-ordered page of a run's trajectories (no turns), oldest or newest step first; cursor = last id seen. */
  async list(runId: string, query: TrajectoriesQuery): Promise<Page<TrajectorySummary>> {
    const { where, cursor, order } = this.filter(runId, query);
    const { limit } = query;
    const rows = await this.db.trajectory.findMany({
      where,
      orderBy: [{ step: order }, { split: 'asc' }, { groupIndex: 'asc' }, { indexInGroup: 'asc' }],
      take: limit + 1,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    });
    const items = rows.slice(0, limit).map(trajectorySummary);
    return { items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
  }

  /** All matching trajectories with their turns, a page at a time (for JSONL export). */
  async *export(runId: string, query: TrajectoryFilter): AsyncGenerator<unknown> {
    const { where } = this.filter(runId, query);
    let cursor: string | undefined;
    for (;;) {
      const rows = await this.db.trajectory.findMany({
        where,
        orderBy: [{ step: 'asc' }, { split: 'asc' }, { groupIndex: 'asc' }, { indexInGroup: 'asc' }],
        include: { turns: { orderBy: { index: 'asc' } } },
        take: 200,
        ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      });
      for (const r of rows) yield { ...trajectorySummary(r), turns: r.turns.map(({ trajectoryId: _, ...t }) => t) };
      if (rows.length < 200) return;
      cursor = rows.at(-1)!.id;
    }
  }

  /** One trajectory of the caller's team, with every turn and state snapshot (for replay). */
  async get(actor: Actor, id: string): Promise<TrajectoryDetail> {
    const t = isUuid(id)
      ? await this.db.trajectory.findFirst({
          where: { id, run: { teamId: actor.teamId } },
          include: { turns: { orderBy: { index: 'asc' } } },
        })
      : null;
    if (!t) throw new NotFoundException(`trajectory ${id} not found`);
    return {
      ...trajectorySummary(t),
      finalSnapshot: t.finalSnapshot,
      turns: t.turns.map(({ trajectoryId: _, ...u }) => ({
        ...u,
        diagnostics: u.diagnostics as TrajectoryDetail['turns'][number]['diagnostics'],
      })),
    };
  }

  /**
   * Flag counts and the most frequent contradicted claims of a run in a step range, with example
   * turns: counts from the per-step rollup, examples from the claim index (diagnosticsSummary).
   */
  async diagnostics(runId: string, q: DiagnosticsQuery): Promise<DiagnosticsSummary> {
    const s = await diagnosticsSummary(this.db, runId, {
      from: q.from ?? 0,
      to: q.to ?? 2_147_483_647,
      split: q.split ?? null,
      limit: q.limit,
      examples: q.examples,
    });
    const contradicted = s.contradicted.map((c) => ({
      pattern: c.pattern,
      count: c.count,
      examples: c.examples.map((e): ClaimExample => ({
        trajectoryId: e.trajectory_id,
        step: e.step,
        split: e.split,
        turn: e.turn,
        text: e.text,
        evidence: e.evidence,
      })),
    }));
    return { from: q.from ?? null, to: q.to ?? null, trajectories: s.trajectories, flags: s.flags, contradicted };
  }

  private filter(runId: string, q: TrajectoryFilter) {
    if (q.cursor !== undefined && !isUuid(q.cursor))
      throw new ValidationError([{ path: 'cursor', message: 'not a cursor from this listing' }], 'query');
    const where: Prisma.TrajectoryWhereInput = {
      runId,
      ...(q.from !== undefined || q.to !== undefined ? { step: { gte: q.from, lte: q.to } } : {}),
      ...(q.split ? { split: q.split } : {}),
      ...(q.success !== undefined ? { success: q.success } : {}),
      ...(q.hallucinated !== undefined ? { hallucinated: q.hallucinated } : {}),
      ...(q.minReward !== undefined || q.maxReward !== undefined ? { totalReward: { gte: q.minReward, lte: q.maxReward } } : {}),
      ...(q.environment ? { environment: q.environment } : {}),
      ...(q.group !== undefined ? { groupIndex: q.group } : {}),
      ...(q.flag ? { flags: { has: q.flag } } : {}),
    };
    return { where, cursor: q.cursor, order: q.order };
  }
}

export function trajectorySummary(t: Trajectory): TrajectorySummary {
  return {
    id: t.id,
    runId: t.runId,
    step: t.step,
    split: t.split,
    group: t.groupIndex,
    indexInGroup: t.indexInGroup,
    seed: t.seed,
    environment: t.environment,
    success: t.success,
    totalReward: t.totalReward,
    numTurns: t.numTurns,
    numActions: t.numActions,
    keptByFilter: t.keptByFilter,
    hallucinated: t.hallucinated,
    flags: t.flags,
  };
}
