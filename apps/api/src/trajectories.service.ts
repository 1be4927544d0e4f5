import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { trajectoriesQuerySchema, ValidationError, type Page, type TrajectorySummary } from '@starpo/contracts';
import type { Db, Prisma, Trajectory } from '@starpo/db';
import type { Actor } from './auth/actor.js';
import { DB } from './tokens.js';
import { isUuid, parseInput } from './validation.js';

@Injectable()
export class TrajectoriesService {
  constructor(@Inject(DB) private readonly db: Db) {}

  /** Filtered, step-ordered page of a run's trajectories (no turns); cursor = last id seen. */
  async list(runId: string, query: unknown): Promise<Page<TrajectorySummary>> {
    const { where, limit, cursor } = this.filter(runId, query);
    const rows = await this.db.trajectory.findMany({
      where,
      orderBy: [{ step: 'asc' }, { split: 'asc' }, { groupIndex: 'asc' }, { indexInGroup: 'asc' }],
      take: limit + 1,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    });
    const items = rows.slice(0, limit).map(trajectorySummary);
    return { items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
  }

  /** All matching trajectories with their turns, a page at a time (for JSONL export). */
  async *export(runId: string, query: unknown): AsyncGenerator<unknown> {
    const { where } = this.filter(runId, { ...(query as object), limit: undefined, cursor: undefined });
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
  async get(actor: Actor, id: string) {
    const t = isUuid(id)
      ? await this.db.trajectory.findFirst({
          where: { id, run: { teamId: actor.teamId } },
          include: { turns: { orderBy: { index: 'asc' } } },
        })
      : null;
    if (!t) throw new NotFoundException(`trajectory ${id} not found`);
    return { ...trajectorySummary(t), turns: t.turns.map(({ trajectoryId: _, ...u }) => u) };
  }

  private filter(runId: string, query: unknown) {
    const q = parseInput(trajectoriesQuerySchema, query, 'query');
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
    return { where, limit: q.limit, cursor: q.cursor };
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
