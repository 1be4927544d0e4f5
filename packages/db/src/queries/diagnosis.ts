import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../client.js';
import { upsertMetricPoints } from './metrics.js';
import { pgJsonText } from './pg-text.js';
import { lockRuns, refreshStepCounts } from './step-counts.js';
import { inTransaction, storeDiagnostics, storeTrajectories, type DiagnosticsUpdate, type TrajectoryInput } from './trajectories.js';

/** A stored trajectory as the reasoning checker reads it (snapshots as stored, unchecked). */
export interface StoredRow {
  env: string;
  success: boolean;
  finalSnapshot: unknown;
  /** `known`: the turn's stored diagnostics, for the checker to keep (set only while new rows join a batch). */
  turns: (CheckerTurn & { known?: unknown })[];
}

type CheckerTurn = {
  think: string;
  formatOk: boolean;
  parsedActions: string[];
  executed: string[];
  effectiveCount: number;
  snapshot: unknown;
};

/** What the checker finds in a batch: each trajectory's turn diagnostics and flags, and the batch's metrics. */
export interface BatchDiagnosis {
  results: { turns: unknown[]; flags: string[] }[];
  metrics: Record<string, number>;
}

/**
 * The checker of `@starpo/envs` (`diagnoseStoredRows`), passed in so this package stays free of it;
 * asynchronous when it runs off the event loop (the API's thread pool), and then a batch is stored
 * while the next one is checked.
 */
export type BatchDiagnoser = (rows: StoredRow[], prefix: string) => BatchDiagnosis | Promise<BatchDiagnosis>;

/** A stored trajectory of a batch being extended, with what it holds now (to rewrite only what changes). */
interface StoredBatchRow extends StoredRow {
  id: string;
  step: number;
  split: 'train' | 'val';
  group: number;
  indexInGroup: number;
  flags: string[];
  turns: (StoredRow['turns'][number] & { index: number; diagnostics: unknown })[];
}

/** $1: run, $2/$3: (step, split) pairs. Every stored trajectory of those batches, turns in order, as the checker reads them. */
const BATCH_ROWS_SQL = `
  SELECT t.id::text AS id, t.step, t.split::text AS split, t.group_index AS "group", t.index_in_group AS "indexInGroup",
         t.environment AS env, t.success, t.final_snapshot AS "finalSnapshot", t.flags,
         coalesce((SELECT json_agg(json_build_object('index', u.index, 'think', u.think, 'formatOk', u.format_ok,
                     'parsedActions', u.parsed_actions, 'executed', u.valid_actions, 'effectiveCount', u.effective_count,
                     'snapshot', u.state_snapshot, 'diagnostics', u.diagnostics) ORDER BY u.index)
                   FROM turns u WHERE u.trajectory_id = t.id), '[]') AS turns
  FROM unnest($2::int[], $3::text[]) AS b(step, split)
  JOIN trajectories t ON t.run_id = $1::uuid AND t.step = b.step AND t.split = b.split::"Split"`;

const identity = (t: { step: number; split: string; group: number; indexInGroup: number }) =>
  `${t.step}/${t.split}/${t.group}/${t.indexInGroup}`;

/** What a value reads back as from a json column (undefined fields dropped, non-finite numbers null). */
const asStored = (v: unknown): unknown => {
  const text = pgJsonText(v);
  return text === undefined ? null : JSON.parse(text);
};

/**
 * Stores trajectories and diagnoses every (step, split) batch they join, so the Diagnostics tab is
 * current when this returns. `diagnosed` counts the trajectories of those batches.
 */
export async function insertDiagnosedTrajectories(
  db: Db,
  runId: string,
  items: TrajectoryInput[],
  diagnose: BatchDiagnoser,
): Promise<{ accepted: number; diagnosed: number }> {
  if (!items.length) return { accepted: 0, diagnosed: 0 };
  const { trajectories } = await diagnoseBatches(db, runId, items, [], diagnose, { reuse: true });
  return { accepted: items.length, diagnosed: trajectories };
}

/**
 * Re-computes the diagnostics of one (step, split) batch of a run from what is stored (after the
 * checker changed): turn diagnostics, trajectory flags and the step's `…/diag/…` metrics.
 */
export function rediagnoseStep(
  db: Db,
  runId: string,
  step: number,
  split: 'train' | 'val',
  diagnose: BatchDiagnoser,
): Promise<{ trajectories: number; hallucinated: number }> {
  return diagnoseBatches(db, runId, [], [{ step, split }], diagnose, { reuse: false });
}

/**
 * One transaction under the run's write lock: the stored rows of every batch that `items` join (or
 * that `also` names), other than those `items` replace, are read back in one statement; each whole
 * batch is diagnosed in memory (template collapse is judged across it); `items` are written with
 * their diagnostics and only stored rows whose diagnostics changed are rewritten. The batches'
 * `…/diag/…` metrics are upserted after the commit, in one write. With `reuse`, stored rows keep
 * their turns' diagnostics (only the template marks are judged again): a batch that a client sends
 * one trajectory at a time is then checked once, not once per request.
 */
async function diagnoseBatches(
  db: Db,
  runId: string,
  items: TrajectoryInput[],
  also: { step: number; split: 'train' | 'val' }[],
  diagnose: BatchDiagnoser,
  { reuse }: { reuse: boolean },
): Promise<{ trajectories: number; hallucinated: number }> {
  const batches = new Map<string, { step: number; split: 'train' | 'val'; rows: (StoredBatchRow | TrajectoryInput)[] }>();
  const batchOf = (t: { step: number; split: 'train' | 'val' }) => {
    const key = `${t.step}/${t.split}`;
    if (!batches.has(key)) batches.set(key, { step: t.step, split: t.split, rows: [] });
    return batches.get(key)!;
  };
  also.forEach(batchOf);
  for (const t of items) batchOf(t).rows.push(t);
  const replaced = new Set(items.map(identity));
  const metrics: { step: number; values: Record<string, number> }[] = [];
  const counts = { trajectories: 0, hallucinated: 0 };
  await inTransaction(db, async (client) => {
    await lockRuns(client, [runId]);
    const keys = [...batches.values()];
    const { rows: stored } = await client.query<StoredBatchRow>(BATCH_ROWS_SQL, [runId, keys.map((b) => b.step), keys.map((b) => b.split)]);
    for (const row of stored) if (!replaced.has(identity(row))) batches.get(`${row.step}/${row.split}`)!.rows.push(row);
    // every batch is handed to the checker at once; each is stored as soon as its diagnosis is back
    const checked = keys.map((batch) => {
      batch.rows.sort((a, b) => a.group - b.group || a.indexInGroup - b.indexInGroup);
      return settle(() =>
        diagnose(
          batch.rows.map((row) => checkerRow(row, reuse)),
          batch.split,
        ),
      );
    });
    for (const [b, batch] of keys.entries()) {
      const { results, metrics: values } = await unwrap(checked[b]!);
      metrics.push({ step: batch.step, values });
      const rewrites: DiagnosticsUpdate[] = [];
      const diagnosed: TrajectoryInput[] = [];
      batch.rows.forEach((row, k) => {
        const { flags, turns } = results[k]!;
        const hallucinated = flags.includes('hallucinated');
        counts.trajectories++;
        if (hallucinated) counts.hallucinated++;
        if (!('id' in row))
          diagnosed.push({ ...row, hallucinated, flags, turns: row.turns.map((u, n) => ({ ...u, diagnostics: turns[n] ?? null })) });
        else if (
          !isDeepStrictEqual(flags, row.flags) ||
          row.turns.some((u, n) => !isDeepStrictEqual(asStored(turns[n] ?? null), u.diagnostics))
        )
          rewrites.push({
            trajectoryId: row.id,
            step: row.step,
            split: row.split,
            hallucinated,
            flags,
            turns: row.turns.map((u, n) => ({ index: u.index, diagnostics: turns[n] ?? null })),
          });
      });
      await storeDiagnostics(client, runId, rewrites);
      await storeTrajectories(client, runId, diagnosed);
    }
    await refreshStepCounts(
      client,
      keys.map(() => runId),
      keys.map((b) => b.step),
    );
  });
  // every batch's metrics in one write (each batch has its own step and split prefix, so no point is given twice)
  await upsertMetricPoints(
    db,
    runId,
    metrics.flatMap((m) => Object.entries(m.values).map(([key, value]) => ({ key, step: m.step, value }))),
  );
  return counts;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The outcome of `f` as a promise that never rejects, so a batch that fails while an earlier one is stored is not an unhandled rejection. */
function settle<T>(f: () => T | Promise<T>): Promise<Settled<T>> {
  return Promise.resolve()
    .then(f)
    .then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
}

async function unwrap<T>(p: Promise<Settled<T>>): Promise<T> {
  const r = await p;
  if (!r.ok) throw r.error;
  return r.value;
}

/** A new or stored trajectory as the checker reads it; a stored one with its diagnostics when they are to be kept. */
function checkerRow(t: StoredBatchRow | TrajectoryInput, reuse: boolean): StoredRow {
  return {
    env: t.env,
    success: t.success,
    finalSnapshot: t.finalSnapshot ?? null,
    turns: t.turns.map((u) => ({
      think: u.think,
      formatOk: u.formatOk,
      parsedActions: u.parsedActions,
      executed: 'executed' in u ? u.executed : u.validActions,
      effectiveCount: u.effectiveCount,
      snapshot: u.snapshot,
      ...(reuse && 'executed' in u ? { known: u.diagnostics } : {}),
    })),
  };
}
