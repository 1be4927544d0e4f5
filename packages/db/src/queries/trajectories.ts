import { randomUUID } from 'node:crypto';
import type { StoredTurnFields } from '@starpo/contracts';
import { poolOf, type Db } from '../client.js';
import { CLAIM_INDEX_COLUMNS, contradictedClaimRows, UNINDEX_CLAIMS_SQL, type ClaimSource } from './claims.js';
import { LeaseLostError } from './leases.js';
import { copyRows } from './pg-copy.js';
import { pgJsonText } from './pg-text.js';
import { lockRuns, refreshStepCounts, type Queryable } from './step-counts.js';

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

/** Columns as arrays for one unnest: node-postgres sends each as one parameter. */
const column = <T, V>(rows: T[], f: (r: T) => V): V[] => rows.map(f);
const json = (v: unknown): string | null => (v === undefined || v === null ? null : pgJsonText(v)!);

const TRAJECTORY_COLUMNS = [
  'id',
  'run_id',
  'step',
  'split',
  'group_index',
  'index_in_group',
  'seed',
  'environment',
  'success',
  'total_reward',
  'num_turns',
  'num_actions',
  'kept_by_filter',
  'hallucinated',
  'flags',
  'final_snapshot',
] as const;
const TURN_COLUMNS = [
  'trajectory_id',
  'index',
  'observation',
  'state_snapshot',
  'raw_reply',
  'think',
  'answer',
  'parsed_actions',
  'valid_actions',
  'format_ok',
  'actions_valid',
  'effective_count',
  'reward',
  'done',
  'prompt_tokens',
  'response_tokens',
  'mean_log_prob',
  'mean_entropy',
  'advantage',
  'diagnostics',
] as const;

/**
 * Insert trajectories and all their turns, inside one transaction (see {@link storeTrajectories}).
 * Re-inserting the same (run, step, split, group, index) replaces it, so a resumed step never leaves
 * duplicates; two items of one call must not share that identity. With `lease`, nothing is written
 * unless the run still carries it (LeaseLostError).
 */
export async function insertTrajectories(db: Db, runId: string, items: TrajectoryInput[], opts: { lease?: number } = {}): Promise<number> {
  if (!items.length) return 0;
  await inTransaction(db, async (client) => {
    if (opts.lease !== undefined) {
      const { rows } = await client.query<{ lease_epoch: number }>('SELECT lease_epoch FROM runs WHERE id = $1::uuid FOR SHARE', [runId]);
      if (rows[0]?.lease_epoch !== opts.lease) throw new LeaseLostError(runId, opts.lease);
    }
    // writers of one run take turns: two concurrent replays of a batch would both find nothing to
    // delete and then collide on the unique identity (and the step counts would miss each other's rows)
    await lockRuns(client, [runId]);
    await storeTrajectories(client, runId, items);
    const steps = [...new Set(items.map((t) => t.step))];
    await refreshStepCounts(
      client,
      steps.map(() => runId),
      steps,
    );
  });
  return items.length;
}

/**
 * Replaces trajectories of a run by identity (one DELETE over unnested identity arrays) and copies in
 * the new trajectories, their turns and the index rows of their contradicted claims (`COPY … FROM
 * STDIN`). Runs inside the caller's transaction, under the run's write lock; the caller refreshes the
 * step counts.
 */
export async function storeTrajectories(client: Queryable, runId: string, items: TrajectoryInput[]): Promise<void> {
  if (!items.length) return;
  const ids = items.map(() => randomUUID());
  await client.query(
    `DELETE FROM trajectories t USING unnest($2::int[], $3::text[], $4::int[], $5::int[]) AS k(step, split, g, i)
       WHERE t.run_id = $1::uuid AND t.step = k.step AND t.split = k.split::"Split" AND t.group_index = k.g AND t.index_in_group = k.i`,
    [
      runId,
      column(items, (t) => t.step),
      column(items, (t) => t.split),
      column(items, (t) => t.group),
      column(items, (t) => t.indexInGroup),
    ],
  );
  await copyRows(
    client,
    'trajectories',
    TRAJECTORY_COLUMNS,
    items.map((t, i) => [
      ids[i],
      runId,
      t.step,
      t.split,
      t.group,
      t.indexInGroup,
      t.seed,
      t.env,
      t.success,
      t.totalReward,
      t.turns.length,
      t.numActions,
      t.keptByFilter,
      t.hallucinated ?? false,
      t.flags ?? [],
      json(t.finalSnapshot),
    ]),
  );
  await copyRows(
    client,
    'turns',
    TURN_COLUMNS,
    items.flatMap((t, i) =>
      t.turns.map((u) => [
        ids[i],
        u.index,
        u.observation,
        json(u.snapshot) ?? 'null',
        u.rawReply,
        u.think,
        u.answer,
        u.parsedActions,
        u.validActions,
        u.formatOk,
        u.formatOk && u.validActions.length > 0 && u.validActions.length === u.parsedActions.length,
        u.effectiveCount,
        u.reward,
        u.done,
        u.promptTokens,
        u.responseTokens,
        u.meanLogProb,
        u.meanEntropy,
        u.advantage ?? null,
        json(u.diagnostics),
      ]),
    ),
  );
  await indexClaims(
    client,
    runId,
    items.map((t, i) => ({ trajectoryId: ids[i]!, step: t.step, split: t.split, turns: t.turns })),
  );
}

/** Writes the index rows of these trajectories' contradicted claims (none of theirs may be indexed yet). */
async function indexClaims(client: Queryable, runId: string, sources: ClaimSource[]): Promise<void> {
  await copyRows(client, 'contradicted_claims', CLAIM_INDEX_COLUMNS, contradictedClaimRows(runId, sources));
}

/**
 * Runs `write` in one transaction on a pooled connection. A connection that failed mid-transaction is
 * dropped rather than handed to the next caller (a lost lease is an expected refusal, not a failure).
 */
export async function inTransaction<T>(db: Db, write: (client: Queryable) => Promise<T>): Promise<T> {
  const client = await poolOf(db).connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await write(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    failure = e as Error;
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release(failure && !(failure instanceof LeaseLostError) ? failure : undefined);
  }
}

export interface DiagnosticsUpdate {
  trajectoryId: string;
  step: number;
  split: 'train' | 'val';
  hallucinated: boolean;
  flags: string[];
  turns: { index: number; diagnostics: unknown }[];
}

/** Writes diagnostics and flags over stored trajectories of a run and re-indexes their claims, inside the caller's transaction and run lock. */
export async function storeDiagnostics(client: Queryable, runId: string, items: DiagnosticsUpdate[]): Promise<void> {
  if (!items.length) return;
  const turns = items.flatMap((t) => t.turns.map((u) => ({ id: t.trajectoryId, ...u })));
  const ids = items.map((t) => t.trajectoryId);
  await client.query(
    `UPDATE trajectories AS t SET hallucinated = v.h, flags = ARRAY(SELECT jsonb_array_elements_text(v.f))
     FROM unnest($1::uuid[], $2::bool[], $3::jsonb[]) AS v(id, h, f) WHERE t.id = v.id`,
    [ids, items.map((t) => t.hallucinated), items.map((t) => pgJsonText(t.flags))],
  );
  await client.query(
    `UPDATE turns AS u SET diagnostics = v.d
     FROM unnest($1::uuid[], $2::int[], $3::json[]) AS v(id, idx, d) WHERE u.trajectory_id = v.id AND u.index = v.idx`,
    [turns.map((u) => u.id), turns.map((u) => u.index), turns.map((u) => pgJsonText(u.diagnostics))],
  );
  await client.query(UNINDEX_CLAIMS_SQL, [ids]);
  await indexClaims(client, runId, items);
}
