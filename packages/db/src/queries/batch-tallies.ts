import { hash } from 'node:crypto';
import { copyRows } from './pg-copy.js';
import type { Queryable } from './step-counts.js';

/** What template collapse compares of a judged turn (well-formed, with a known state): its think key and its state as JSON. */
export interface TemplateKeys {
  think: string;
  state: string;
}

/** How many distinct think keys and states the judged turns of a batch have. */
export interface DistinctCounts {
  thinks: number;
  states: number;
}

/** A batch's tally (the checker's integer sums, opaque here) and distinct counts, as `batch_tallies` keeps them. */
export interface BatchState<T> {
  tally: T;
  distinct: DistinctCounts;
}

/** A batch of one run. */
export interface BatchRef {
  step: number;
  split: 'train' | 'val';
}

/** md5 of a key as a uuid: 16 bytes a key however long the think text or the board. */
export function keyHash(text: string): string {
  const h = hash('md5', text, 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Hashed keys of one turn. */
export interface TurnKeyRow {
  trajectoryId: string;
  turn: number;
  think: string;
  state: string;
}

/** The hashed keys of a trajectory's judged turns (`keys[n]` is those of the turn numbered `turns[n].index`; turns without keys are left out). */
export function turnKeyRows(trajectoryId: string, keys: (TemplateKeys | null)[], turns: { index: number }[]): TurnKeyRow[] {
  return keys.flatMap((k, n) => (k ? [{ trajectoryId, turn: turns[n]!.index, think: keyHash(k.think), state: keyHash(k.state) }] : []));
}

/** The stored states of these batches (those without one are missing from the map), by `step/split`. */
export async function readBatchStates<T>(q: Queryable, runId: string, batches: BatchRef[]): Promise<Map<string, BatchState<T>>> {
  const { rows } = await q.query<{ step: number; split: string; tally: T; thinks: number; states: number }>(
    `SELECT b.step, b.split::text AS split, b.tally, b.distinct_thinks AS thinks, b.distinct_states AS states
     FROM unnest($2::int[], $3::text[]) AS k(step, split)
     JOIN batch_tallies b ON b.run_id = $1::uuid AND b.step = k.step AND b.split = k.split::"Split"`,
    [runId, batches.map((b) => b.step), batches.map((b) => b.split)],
  );
  return new Map(rows.map((r) => [`${r.step}/${r.split}`, { tally: r.tally, distinct: { thinks: r.thinks, states: r.states } }]));
}

/**
 * Writes a batch's state after the last write to its trajectories in this transaction (the trigger
 * on trajectories drops it at every write). With `rows`, the batch's turn keys are replaced by these
 * (a batch judged whole); otherwise they are added to the stored ones.
 */
export async function writeBatchState<T>(
  q: Queryable,
  runId: string,
  batch: BatchRef,
  state: BatchState<T>,
  keys: TurnKeyRow[],
  { replace }: { replace: boolean },
): Promise<void> {
  if (replace)
    await q.query(`DELETE FROM turn_keys WHERE run_id = $1::uuid AND step = $2 AND split = $3::"Split"`, [runId, batch.step, batch.split]);
  await copyRows(q, 'turn_keys', ['trajectory_id', 'turn', 'run_id', 'step', 'split', 'think_key', 'state_key'], keys, (k) => [
    k.trajectoryId,
    k.turn,
    runId,
    batch.step,
    batch.split,
    k.think,
    k.state,
  ]);
  await q.query(
    `INSERT INTO batch_tallies (run_id, step, split, tally, distinct_thinks, distinct_states) VALUES ($1::uuid, $2, $3::"Split", $4::jsonb, $5, $6)
     ON CONFLICT (run_id, step, split) DO UPDATE SET tally = excluded.tally, distinct_thinks = excluded.distinct_thinks, distinct_states = excluded.distinct_states`,
    [runId, batch.step, batch.split, JSON.stringify(state.tally), state.distinct.thinks, state.distinct.states],
  );
}

/**
 * For the given think keys (or states) of a batch, each stored (key, state) pair, and whether a turn
 * outside `leaving` (trajectories about to be replaced) still holds it.
 */
export async function storedKeyPairs(
  q: Queryable,
  runId: string,
  batch: BatchRef,
  by: 'think_key' | 'state_key',
  keys: string[],
  leaving: string[],
): Promise<{ key: string; state: string; kept: boolean }[]> {
  if (!keys.length) return [];
  const { rows } = await q.query<{ key: string; state: string; kept: boolean }>(
    `SELECT ${by}::text AS key, state_key::text AS state, bool_or(NOT (trajectory_id = ANY($5::uuid[]))) AS kept
     FROM turn_keys WHERE run_id = $1::uuid AND step = $2 AND split = $3::"Split" AND ${by} = ANY($4::uuid[])
     GROUP BY 1, 2`,
    [runId, batch.step, batch.split, keys, leaving],
  );
  return rows;
}

/** The stored trajectories of a batch with a turn of one of these think keys, other than `leaving`. */
export async function trajectoriesWithThinks(
  q: Queryable,
  runId: string,
  batch: BatchRef,
  thinks: string[],
  leaving: string[],
): Promise<string[]> {
  if (!thinks.length) return [];
  const { rows } = await q.query<{ id: string }>(
    `SELECT DISTINCT trajectory_id::text AS id FROM turn_keys
     WHERE run_id = $1::uuid AND step = $2 AND split = $3::"Split" AND think_key = ANY($4::uuid[]) AND NOT (trajectory_id = ANY($5::uuid[]))`,
    [runId, batch.step, batch.split, thinks, leaving],
  );
  return rows.map((r) => r.id);
}
