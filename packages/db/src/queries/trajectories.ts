import { randomUUID } from 'node:crypto';
import type { StoredTurnFields } from '@starpo/contracts';
import { poolOf, type Db } from '../client.js';
import { hasContradictedClaim, INDEX_CLAIMS_SQL, UNINDEX_CLAIMS_SQL } from './claims.js';
import { LeaseLostError } from './leases.js';
import { pgJsonText, pgText } from './pg-text.js';
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
 * Replaces trajectories of a run by identity and inserts their turns, in three statements over unnested
 * column arrays sent straight through node-postgres (Prisma's multi-row createMany spent most of its
 * time turning every field into a parameter), and indexes their contradicted claims. Runs inside the
 * caller's transaction, under the run's write lock; the caller refreshes the step counts.
 */
export async function storeTrajectories(client: Queryable, runId: string, items: TrajectoryInput[]): Promise<void> {
  if (!items.length) return;
  const ids = items.map(() => randomUUID());
  const turns = items.flatMap((t, i) => t.turns.map((u) => ({ id: ids[i]!, u })));
  const identity = [
    column(items, (t) => t.step),
    column(items, (t) => t.split),
    column(items, (t) => t.group),
    column(items, (t) => t.indexInGroup),
  ];
  await client.query(
    `DELETE FROM trajectories t USING unnest($2::int[], $3::text[], $4::int[], $5::int[]) AS k(step, split, g, i)
       WHERE t.run_id = $1::uuid AND t.step = k.step AND t.split = k.split::"Split" AND t.group_index = k.g AND t.index_in_group = k.i`,
    [runId, ...identity],
  );
  await client.query(
    `INSERT INTO trajectories (id, run_id, step, split, group_index, index_in_group, seed, environment, success, total_reward,
                                 num_turns, num_actions, kept_by_filter, hallucinated, flags, final_snapshot)
       SELECT id, $1::uuid, step, split::"Split", g, i, seed, env, success, reward, turns, actions, kept, hallucinated,
              ARRAY(SELECT jsonb_array_elements_text(flags)), final
       FROM unnest($2::uuid[], $3::int[], $4::text[], $5::int[], $6::int[], $7::int[], $8::text[], $9::bool[], $10::float8[],
                   $11::int[], $12::int[], $13::bool[], $14::bool[], $15::jsonb[], $16::jsonb[])
         AS v(id, step, split, g, i, seed, env, success, reward, turns, actions, kept, hallucinated, flags, final)`,
    [
      runId,
      ids,
      ...identity,
      column(items, (t) => t.seed),
      column(items, (t) => t.env),
      column(items, (t) => t.success),
      column(items, (t) => t.totalReward),
      column(items, (t) => t.turns.length),
      column(items, (t) => t.numActions),
      column(items, (t) => t.keptByFilter),
      column(items, (t) => t.hallucinated ?? false),
      column(items, (t) => pgJsonText(t.flags ?? [])),
      column(items, (t) => json(t.finalSnapshot)),
    ],
  );
  await client.query(
    `INSERT INTO turns (trajectory_id, index, observation, state_snapshot, raw_reply, think, answer, parsed_actions, valid_actions,
                          format_ok, actions_valid, effective_count, reward, done, prompt_tokens, response_tokens, mean_log_prob,
                          mean_entropy, advantage, diagnostics)
       SELECT id, idx, obs, snap, raw, think, answer, ARRAY(SELECT jsonb_array_elements_text(parsed)), ARRAY(SELECT jsonb_array_elements_text(valid)),
              format_ok, actions_valid, effective, reward, done, prompt, response, logp, entropy, advantage, diag
       FROM unnest($1::uuid[], $2::int[], $3::text[], $4::jsonb[], $5::text[], $6::text[], $7::text[], $8::jsonb[], $9::jsonb[],
                   $10::bool[], $11::bool[], $12::int[], $13::float8[], $14::bool[], $15::int[], $16::int[], $17::float8[],
                   $18::float8[], $19::float8[], $20::jsonb[])
         AS v(id, idx, obs, snap, raw, think, answer, parsed, valid, format_ok, actions_valid, effective, reward, done, prompt, response,
              logp, entropy, advantage, diag)`,
    [
      column(turns, (r) => r.id),
      column(turns, (r) => r.u.index),
      column(turns, (r) => pgText(r.u.observation)),
      column(turns, (r) => json(r.u.snapshot) ?? 'null'),
      column(turns, (r) => pgText(r.u.rawReply)),
      column(turns, (r) => pgText(r.u.think)),
      column(turns, (r) => pgText(r.u.answer)),
      column(turns, (r) => pgJsonText(r.u.parsedActions)),
      column(turns, (r) => pgJsonText(r.u.validActions)),
      column(turns, (r) => r.u.formatOk),
      column(turns, (r) => r.u.formatOk && r.u.validActions.length > 0 && r.u.validActions.length === r.u.parsedActions.length),
      column(turns, (r) => r.u.effectiveCount),
      column(turns, (r) => r.u.reward),
      column(turns, (r) => r.u.done),
      column(turns, (r) => r.u.promptTokens),
      column(turns, (r) => r.u.responseTokens),
      column(turns, (r) => r.u.meanLogProb),
      column(turns, (r) => r.u.meanEntropy),
      column(turns, (r) => r.u.advantage ?? null),
      column(turns, (r) => json(r.u.diagnostics)),
    ],
  );
  const contradicted = ids.filter((_, i) => items[i]!.turns.some((u) => hasContradictedClaim(u.diagnostics)));
  if (contradicted.length) await client.query(INDEX_CLAIMS_SQL, [contradicted]);
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
  hallucinated: boolean;
  flags: string[];
  turns: { index: number; diagnostics: unknown }[];
}

/** Writes diagnostics and flags over stored trajectories and re-indexes their claims, inside the caller's transaction and run lock. */
export async function storeDiagnostics(client: Queryable, items: DiagnosticsUpdate[]): Promise<void> {
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
     FROM unnest($1::uuid[], $2::int[], $3::jsonb[]) AS v(id, idx, d) WHERE u.trajectory_id = v.id AND u.index = v.idx`,
    [turns.map((u) => u.id), turns.map((u) => u.index), turns.map((u) => pgJsonText(u.diagnostics))],
  );
  await client.query(UNINDEX_CLAIMS_SQL, [ids]);
  await client.query(INDEX_CLAIMS_SQL, [ids]);
}
