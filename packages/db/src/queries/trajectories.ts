import { randomUUID } from 'node:crypto';
import type { StoredTurnFields } from '@starpo/contracts';
import { poolOf, type Db } from '../client.js';
import { CLAIM_INDEX_COLUMNS, contradictedClaimRows, UNINDEX_CLAIMS_SQL, type ClaimSource } from './claims.js';
import { LeaseLostError } from './leases.js';
import { copyRows, type CopyField } from './pg-copy.js';
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

/** A COPY column beside the value a row gives it: one list, so a column and its value cannot drift apart. */
type Field<R> = readonly [column: string, value: (row: R) => CopyField];
const columns = <R>(fields: readonly Field<R>[]) => fields.map(([c]) => c);
const values = <R>(fields: readonly Field<R>[], row: R) => fields.map(([, value]) => value(row));

/** A trajectory's columns after its id and run. */
const TRAJECTORY_FIELDS: readonly Field<TrajectoryInput>[] = [
  ['step', (t) => t.step],
  ['split', (t) => t.split],
  ['group_index', (t) => t.group],
  ['index_in_group', (t) => t.indexInGroup],
  ['seed', (t) => t.seed],
  ['environment', (t) => t.env],
  ['success', (t) => t.success],
  ['total_reward', (t) => t.totalReward],
  ['num_turns', (t) => t.turns.length],
  ['num_actions', (t) => t.numActions],
  ['kept_by_filter', (t) => t.keptByFilter],
  ['hallucinated', (t) => t.hallucinated ?? false],
  ['flags', (t) => t.flags ?? []],
  ['final_snapshot', (t) => json(t.finalSnapshot)],
];

/** A turn's columns after its trajectory's id. */
const TURN_FIELDS: readonly Field<TurnInput>[] = [
  ['index', (u) => u.index],
  ['observation', (u) => u.observation],
  ['state_snapshot', (u) => json(u.snapshot) ?? 'null'],
  ['raw_reply', (u) => u.rawReply],
  ['think', (u) => u.think],
  ['answer', (u) => u.answer],
  ['parsed_actions', (u) => u.parsedActions],
  ['valid_actions', (u) => u.validActions],
  ['format_ok', (u) => u.formatOk],
  ['actions_valid', (u) => u.formatOk && u.validActions.length > 0 && u.validActions.length === u.parsedActions.length],
  ['effective_count', (u) => u.effectiveCount],
  ['reward', (u) => u.reward],
  ['done', (u) => u.done],
  ['prompt_tokens', (u) => u.promptTokens],
  ['response_tokens', (u) => u.responseTokens],
  ['mean_log_prob', (u) => u.meanLogProb],
  ['mean_entropy', (u) => u.meanEntropy],
  ['advantage', (u) => u.advantage ?? null],
  ['diagnostics', (u) => json(u.diagnostics)],
];

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
 * step counts. Returns the new trajectories' ids, in order.
 */
export async function storeTrajectories(client: Queryable, runId: string, items: TrajectoryInput[]): Promise<string[]> {
  if (!items.length) return [];
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
  await copyRows(client, 'trajectories', ['id', 'run_id', ...columns(TRAJECTORY_FIELDS)], items, (t, i) => [
    ids[i],
    runId,
    ...values(TRAJECTORY_FIELDS, t),
  ]);
  const turns = items.flatMap((t, i) => t.turns.map((turn) => ({ id: ids[i]!, turn })));
  await copyRows(client, 'turns', ['trajectory_id', ...columns(TURN_FIELDS)], turns, ({ id, turn }) => [id, ...values(TURN_FIELDS, turn)]);
  await indexClaims(
    client,
    runId,
    items.map((t, i) => ({ trajectoryId: ids[i]!, step: t.step, split: t.split, turns: t.turns })),
  );
  return ids;
}

/** Writes the index rows of these trajectories' contradicted claims (none of theirs may be indexed yet). */
async function indexClaims(client: Queryable, runId: string, sources: ClaimSource[]): Promise<void> {
  await copyRows(client, 'contradicted_claims', CLAIM_INDEX_COLUMNS, contradictedClaimRows(runId, sources), (row) => row);
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
    [turns.map((u) => u.id), turns.map((u) => u.index), turns.map((u) => json(u.diagnostics))],
  );
  await client.query(UNINDEX_CLAIMS_SQL, [ids]);
  await indexClaims(client, runId, items);
}
