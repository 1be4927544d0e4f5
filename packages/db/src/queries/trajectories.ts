import { randomUUID } from 'node:crypto';
import type { StoredTurnFields } from '@starpo/contracts';
import type { Db } from '../client.js';
import { assertLease } from './leases.js';
import { pgJson, pgText } from './pg-text.js';

export interface TurnInput extends StoredTurnFields {
  snapshot: unknown;
  advantage?: number | null;
  diagnostics?: unknown;
}

export interface TrajectoryInput {
  step: number;
  split: 'train' | 'val';
  group: number;
  indexInGroup: number;
  seed: number;
  env: string;
  success: boolean;
  totalReward: number;
  numActions: number;
  keptByFilter: boolean | null;
  hallucinated?: boolean;
  flags?: string[];
  /** State after the last turn. */
  finalSnapshot?: unknown;
  turns: TurnInput[];
}

/** A 1 MB batch of several thousand turns can outlast Prisma's 5 s transaction default on a busy machine. */
const LONG_TRANSACTION = { timeout: 60_000, maxWait: 10_000 };

/**
 * Insert trajectories and all their turns in two multi-row statements, inside one transaction.
 * Re-inserting the same (run, step, split, group, index) replaces it, so a resumed step never
 * leaves duplicates; two items of one call must not share that identity.
 */
export async function insertTrajectories(db: Db, runId: string, items: TrajectoryInput[], opts: { lease?: number } = {}): Promise<number> {
  if (!items.length) return 0;
  const withIds = items.map((t) => ({ id: randomUUID(), t }));
  await db.$transaction(async (tx) => {
    if (opts.lease !== undefined) await assertLease(tx, runId, opts.lease);
    // writers of one run take turns: two concurrent replays of a batch would both find nothing to
    // delete and then collide on the unique identity
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${runId}, 0))`;
    for (const step of new Set(items.map((t) => t.step))) {
      const keys = items.filter((t) => t.step === step);
      await tx.trajectory.deleteMany({
        where: { runId, step, OR: keys.map((t) => ({ split: t.split, groupIndex: t.group, indexInGroup: t.indexInGroup })) },
      });
    }
    await tx.trajectory.createMany({
      data: withIds.map(({ id, t }) => ({
        id,
        runId,
        step: t.step,
        split: t.split,
        groupIndex: t.group,
        indexInGroup: t.indexInGroup,
        seed: t.seed,
        environment: t.env,
        success: t.success,
        totalReward: t.totalReward,
        numTurns: t.turns.length,
        numActions: t.numActions,
        keptByFilter: t.keptByFilter,
        hallucinated: t.hallucinated ?? false,
        flags: (t.flags ?? []).map(pgText),
        finalSnapshot: (t.finalSnapshot === undefined ? undefined : pgJson(t.finalSnapshot)) as object | undefined,
      })),
    });
    await tx.turn.createMany({
      data: withIds.flatMap(({ id, t }) =>
        t.turns.map((u) => ({
          trajectoryId: id,
          index: u.index,
          observation: pgText(u.observation),
          stateSnapshot: pgJson(u.snapshot) as object,
          rawReply: pgText(u.rawReply),
          think: pgText(u.think),
          answer: pgText(u.answer),
          parsedActions: u.parsedActions.map(pgText),
          validActions: u.validActions.map(pgText),
          formatOk: u.formatOk,
          actionsValid: u.formatOk && u.validActions.length > 0 && u.validActions.length === u.parsedActions.length,
          effectiveCount: u.effectiveCount,
          reward: u.reward,
          done: u.done,
          promptTokens: u.promptTokens,
          responseTokens: u.responseTokens,
          meanLogProb: u.meanLogProb,
          meanEntropy: u.meanEntropy,
          advantage: u.advantage ?? null,
          diagnostics: (u.diagnostics === undefined ? undefined : pgJson(u.diagnostics)) as object | undefined,
        })),
      ),
    });
  }, LONG_TRANSACTION);
  return items.length;
}

export interface DiagnosticsUpdate {
  trajectoryId: string;
  hallucinated: boolean;
  flags: string[];
  turns: { index: number; diagnostics: unknown }[];
}

/** Replace the stored diagnostics and flags of trajectories (re-computed after the checker changed), in two statements. */
export async function updateDiagnostics(db: Db, items: DiagnosticsUpdate[]): Promise<void> {
  if (!items.length) return;
  const turns = items.flatMap((t) => t.turns.map((u) => ({ id: t.trajectoryId, ...u })));
  await db.$transaction([
    db.$executeRawUnsafe(
      `UPDATE trajectories AS t SET hallucinated = v.h, flags = ARRAY(SELECT jsonb_array_elements_text(v.f))
       FROM unnest($1::uuid[], $2::bool[], $3::jsonb[]) AS v(id, h, f) WHERE t.id = v.id`,
      items.map((t) => t.trajectoryId),
      items.map((t) => t.hallucinated),
      items.map((t) => JSON.stringify(t.flags.map(pgText))),
    ),
    db.$executeRawUnsafe(
      `UPDATE turns AS u SET diagnostics = v.d
       FROM unnest($1::uuid[], $2::int[], $3::jsonb[]) AS v(id, idx, d) WHERE u.trajectory_id = v.id AND u.index = v.idx`,
      turns.map((u) => u.id),
      turns.map((u) => u.index),
      turns.map((u) => JSON.stringify(pgJson(u.diagnostics))),
    ),
  ]);
}
