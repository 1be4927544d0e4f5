import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../client.js';
import { upsertMetricPoints } from './metrics.js';
import { pgJsonText } from './pg-text.js';
import { addStepCounts, lockRuns, refreshStepCounts, type Queryable, type StepCountDelta } from './step-counts.js';
import { CLAIM_INDEX_COLUMNS, contradictedClaimRows } from './claims.js';
import { inTransaction, storeDiagnostics, storeTrajectories, type DiagnosticsUpdate, type TrajectoryInput } from './trajectories.js';
import {
  readBatchStates,
  storedKeyPairs,
  trajectoriesWithThinks,
  turnKeyRows,
  writeBatchState,
  type BatchRef,
  type BatchState,
  type DistinctCounts,
  type TemplateKeys,
  type TurnKeyRow,
} from './batch-tallies.js';

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

/**
 * What the checker finds in a batch: each trajectory's turn diagnostics and flags, and the batch's
 * metrics. A checker that also gives each turn's template keys and the batch's tally and distinct
 * counts lets later requests extend the batch instead of judging it whole again.
 */
export interface BatchDiagnosis {
  results: { turns: unknown[]; flags: string[]; keys?: (TemplateKeys | null)[] }[];
  metrics: Record<string, number>;
  tally?: unknown;
  distinct?: DistinctCounts;
}

/**
 * The checker of `@starpo/envs` (`diagnoseStoredRows`), passed in so this package stays free of it;
 * asynchronous when it runs off the event loop (the API's thread pool), and then a batch is stored
 * while the next one is checked.
 */
export type BatchDiagnoser = (rows: StoredRow[], prefix: string) => BatchDiagnosis | Promise<BatchDiagnosis>;

/** A trajectory's diagnosis once its template marks are settled, with its share of the batch's tally (null: no checked turn). */
export interface SettledTrajectory<T> {
  turns: unknown[];
  flags: string[];
  tally: T | null;
}

/**
 * The checker's parts for extending a batch that has a stored tally (`@starpo/envs`:
 * `diagnoseStoredTurnRows` and `storedBatchParts`): the new rows' own checks (asynchronous when off
 * the event loop), then template marks settled here from the stored turn keys.
 */
export interface IncrementalChecker<T> {
  /** Each turn's own checks, template marks not judged, and each turn's template keys. */
  turns(
    rows: StoredRow[],
  ): { turns: unknown[]; keys: (TemplateKeys | null)[] }[] | Promise<{ turns: unknown[]; keys: (TemplateKeys | null)[] }[]>;
  /** Flags and tally of a trajectory whose turn i is marked `templates[i]` (undefined: as it stands). */
  settle(success: boolean, turns: unknown[], templates: (boolean | undefined)[]): SettledTrajectory<T>;
  add(a: T, b: T, sign?: 1 | -1): T;
  metrics(tally: T, distinct: DistinctCounts, prefix: string): Record<string, number>;
}

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
 * current when this returns. With `incremental`, a batch that has a stored tally is extended: only
 * these trajectories are checked, and only stored ones whose template marks change are rewritten;
 * other batches are judged whole (and keep a tally from then on). `diagnosed` counts the
 * trajectories whose diagnostics were computed or rewritten.
 */
export async function insertDiagnosedTrajectories<T>(
  db: Db,
  runId: string,
  items: TrajectoryInput[],
  diagnose: BatchDiagnoser,
  incremental?: IncrementalChecker<T>,
): Promise<{ accepted: number; diagnosed: number }> {
  if (!items.length) return { accepted: 0, diagnosed: 0 };
  const { trajectories } = await diagnoseBatches(db, runId, items, [], diagnose, { reuse: true, incremental });
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

type Batch = BatchRef & { rows: (StoredBatchRow | TrajectoryInput)[] };

/**
 * One transaction under the run's write lock. A batch with a stored tally (and `incremental`) is
 * extended by {@link extendBatch}. Every other batch that `items` join (or that `also` names) is
 * judged whole: its stored rows other than those `items` replace are read back in one statement;
 * each whole batch is diagnosed in memory (template collapse is judged across it); `items` are
 * written with their diagnostics and only stored rows whose diagnostics changed are rewritten. The
 * batches' `…/diag/…` metrics are upserted after the commit, in one write. With `reuse`, stored rows
 * keep their turns' diagnostics (only the template marks are judged again).
 */
async function diagnoseBatches<T>(
  db: Db,
  runId: string,
  items: TrajectoryInput[],
  also: BatchRef[],
  diagnose: BatchDiagnoser,
  { reuse, incremental }: { reuse: boolean; incremental?: IncrementalChecker<T> },
): Promise<{ trajectories: number; hallucinated: number }> {
  const batches = new Map<string, Batch>();
  const batchOf = (t: BatchRef) => {
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
    const all = [...batches.values()];
    const states = incremental ? await readBatchStates<T>(client, runId, all) : new Map<string, BatchState<T>>();
    const flat = all.filter((b) => states.has(`${b.step}/${b.split}`));
    const whole = all.filter((b) => !states.has(`${b.step}/${b.split}`));
    // the new rows of extended batches go to the checker first, to be checked while whole batches are read
    const own = flat.map((b) => settle(() => incremental!.turns((b.rows as TrajectoryInput[]).map((row) => checkerRow(row, false)))));
    if (whole.length) {
      const { rows: stored } = await client.query<StoredBatchRow>(BATCH_ROWS_SQL, [
        runId,
        whole.map((b) => b.step),
        whole.map((b) => b.split),
      ]);
      for (const row of stored) if (!replaced.has(identity(row))) batches.get(`${row.step}/${row.split}`)!.rows.push(row);
    }
    // every batch is handed to the checker at once; each is stored as soon as its diagnosis is back
    const checked = whole.map((batch) => {
      batch.rows.sort((a, b) => a.group - b.group || a.indexInGroup - b.indexInGroup);
      return settle(() =>
        diagnose(
          batch.rows.map((row) => checkerRow(row, reuse)),
          batch.split,
        ),
      );
    });
    for (const [b, batch] of whole.entries()) {
      const diagnosis = await unwrap(checked[b]!);
      metrics.push({ step: batch.step, values: diagnosis.metrics });
      await storeWholeBatch(client, runId, batch, diagnosis, counts);
    }
    const countDeltas: StepCountDelta[] = [];
    for (const [b, batch] of flat.entries()) {
      const extended = await extendBatch(
        client,
        runId,
        batch,
        batch.rows as TrajectoryInput[],
        states.get(`${batch.step}/${batch.split}`)!,
        await unwrap(own[b]!),
        incremental!,
      );
      metrics.push({ step: batch.step, values: extended.metrics });
      counts.trajectories += extended.diagnosed;
      counts.hallucinated += extended.hallucinated;
      countDeltas.push(...extended.counts);
    }
    // a step with a batch judged whole is recounted (its other split with it); extended batches add their changes
    const recounted = new Set(whole.map((b) => b.step));
    await refreshStepCounts(
      client,
      [...recounted].map(() => runId),
      [...recounted],
    );
    await addStepCounts(
      client,
      runId,
      countDeltas.filter((d) => !recounted.has(d.step)),
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

/**
 * Stores a batch judged whole: its new rows, the stored rows whose diagnostics changed, and (when
 * the checker gave them) the batch's turn keys and tally, so the next request extends it.
 */
async function storeWholeBatch(
  client: Queryable,
  runId: string,
  batch: Batch,
  { results, tally, distinct }: BatchDiagnosis,
  counts: { trajectories: number; hallucinated: number },
): Promise<void> {
  const rewrites: DiagnosticsUpdate[] = [];
  const diagnosed: TrajectoryInput[] = [];
  const keyed: { id: string | number; keys: (TemplateKeys | null)[] | undefined; turns: { index: number }[] }[] = [];
  batch.rows.forEach((row, k) => {
    const { flags, turns, keys } = results[k]!;
    const hallucinated = flags.includes('hallucinated');
    counts.trajectories++;
    if (hallucinated) counts.hallucinated++;
    if (!('id' in row)) {
      keyed.push({ id: diagnosed.length, keys, turns: row.turns });
      diagnosed.push({ ...row, hallucinated, flags, turns: row.turns.map((u, n) => ({ ...u, diagnostics: turns[n] ?? null })) });
      return;
    }
    keyed.push({ id: row.id, keys, turns: row.turns });
    if (!isDeepStrictEqual(flags, row.flags) || row.turns.some((u, n) => !isDeepStrictEqual(asStored(turns[n] ?? null), u.diagnostics)))
      rewrites.push(rewriteOf(row, { hallucinated, flags, turns }));
  });
  await storeDiagnostics(client, runId, rewrites);
  const ids = await storeTrajectories(client, runId, diagnosed);
  if (tally === undefined || !distinct || keyed.some((k) => !k.keys)) return;
  const keys = keyed.flatMap((k) => turnKeyRows(typeof k.id === 'number' ? ids[k.id]! : k.id, k.keys!, k.turns));
  await writeBatchState(client, runId, batch, { tally, distinct }, keys, { replace: true });
}

const rewriteOf = (
  row: { id: string; step: number; split: 'train' | 'val'; turns: { index: number }[] },
  { hallucinated, flags, turns }: { hallucinated: boolean; flags: string[]; turns: unknown[] },
): DiagnosticsUpdate => ({
  trajectoryId: row.id,
  step: row.step,
  split: row.split,
  hallucinated,
  flags,
  turns: row.turns.map((u, n) => ({ index: u.index, diagnostics: turns[n] ?? null })),
});

/** A stored trajectory as an extended batch reads it: its turns' diagnostics and hashed keys. */
interface KeyedRow {
  id: string;
  step: number;
  split: 'train' | 'val';
  success: boolean;
  flags: string[];
  turns: { index: number; diagnostics: unknown }[];
  keys: { turn: number; think: string; state: string }[];
}

const KEYED_COLUMNS = `t.id::text AS id, t.step, t.split::text AS split, t.success, t.flags,
  coalesce((SELECT json_agg(json_build_object('index', u.index, 'diagnostics', u.diagnostics) ORDER BY u.index)
            FROM turns u WHERE u.trajectory_id = t.id), '[]') AS turns,
  coalesce((SELECT json_agg(json_build_object('turn', k.turn, 'think', k.think_key, 'state', k.state_key))
            FROM turn_keys k WHERE k.trajectory_id = t.id), '[]') AS keys`;

/** $1: run, $2: step, $3: split, $4/$5: (group, index) pairs. The stored rows those identities name. */
const KEYED_BY_IDENTITY_SQL = `SELECT ${KEYED_COLUMNS}
  FROM unnest($4::int[], $5::int[]) AS x(g, i)
  JOIN trajectories t ON t.run_id = $1::uuid AND t.step = $2 AND t.split = $3::"Split" AND t.group_index = x.g AND t.index_in_group = x.i`;

/** $1: trajectory ids. */
const KEYED_BY_ID_SQL = `SELECT ${KEYED_COLUMNS} FROM trajectories t WHERE t.id = ANY($1::uuid[])`;

/**
 * Extends a batch that has a stored tally by `items` (already checked on their own: `own`), in the
 * caller's transaction: the stored rows they replace leave the tally; template marks are judged from
 * the stored turn keys that share a think key or a state with the new or leaving turns; stored rows
 * whose think key crosses between one distinct state and more are rewritten (their tally with them);
 * then the new rows, their keys and the batch's new state are written. The same result as judging
 * the batch whole, without reading it.
 */
async function extendBatch<T>(
  client: Queryable,
  runId: string,
  batch: BatchRef,
  items: TrajectoryInput[],
  state: BatchState<T>,
  own: { turns: unknown[]; keys: (TemplateKeys | null)[] }[],
  checker: IncrementalChecker<T>,
): Promise<{ metrics: Record<string, number>; diagnosed: number; hallucinated: number; counts: StepCountDelta[] }> {
  const { rows: leaving } = await client.query<KeyedRow>(KEYED_BY_IDENTITY_SQL, [
    runId,
    batch.step,
    batch.split,
    items.map((t) => t.group),
    items.map((t) => t.indexInGroup),
  ]);
  const leavingIds = leaving.map((r) => r.id);
  const fresh = own.map((o, k) => turnKeyRows('', o.keys, items[k]!.turns));
  const thinks = [...new Set([...fresh.flat(), ...leaving.flatMap((r) => r.keys)].map((k) => k.think))];
  const statesOf = [...new Set([...fresh.flat(), ...leaving.flatMap((r) => r.keys)].map((k) => k.state))];
  const [byThink, byState] = await Promise.all([
    storedKeyPairs(client, runId, batch, 'think_key', thinks, leavingIds),
    storedKeyPairs(client, runId, batch, 'state_key', statesOf, leavingIds),
  ]);
  // each touched think key's distinct states before this request and after it
  const before = new Map<string, Set<string>>(thinks.map((k) => [k, new Set()]));
  const after = new Map<string, Set<string>>(thinks.map((k) => [k, new Set()]));
  for (const p of byThink) {
    before.get(p.key)!.add(p.state);
    if (p.kept) after.get(p.key)!.add(p.state);
  }
  for (const k of fresh.flat()) after.get(k.think)!.add(k.state);
  const present = (m: Map<string, Set<string>>) => [...m.values()].filter((s) => s.size).length;
  const statesBefore = new Set(byState.map((p) => p.key));
  const statesAfter = new Set([...byState.filter((p) => p.kept).map((p) => p.key), ...fresh.flat().map((k) => k.state)]);
  const distinct = {
    thinks: state.distinct.thinks - present(before) + present(after),
    states: state.distinct.states - statesBefore.size + statesAfter.size,
  };
  const templated = (think: string) => after.get(think)!.size > 1;
  const crossed = new Set(thinks.filter((k) => before.get(k)!.size > 1 !== templated(k)));

  // the step counts change by what leaves, what joins and the rewritten rows' flags
  const counts: StepCountDelta[] = [];
  const count = (kind: StepCountDelta['kind'], name: string, n: number) => counts.push({ ...batch, kind, name, n });
  const countFlags = (flags: string[], sign: 1 | -1) => flags.forEach((f) => count('flag', f, sign));
  count('trajectories', '', items.length - leaving.length);
  for (const r of leaving) countFlags(r.flags, -1);
  if (leaving.length) {
    const { rows } = await client.query<{ pattern: string; n: number }>(
      'SELECT pattern, sum(claims)::int AS n FROM contradicted_claims WHERE trajectory_id = ANY($1::uuid[]) GROUP BY pattern',
      [leavingIds],
    );
    for (const r of rows) count('claims', r.pattern, -r.n);
  }

  let tally = state.tally;
  for (const r of leaving) {
    const old = checker.settle(r.success, diagnosticsOf(r), []).tally;
    if (old !== null) tally = checker.add(tally, old, -1);
  }
  // stored rows whose marks change: their old share leaves the tally and the new one joins it
  const ids = await trajectoriesWithThinks(client, runId, batch, [...crossed], leavingIds);
  const touched = ids.length ? (await client.query<KeyedRow>(KEYED_BY_ID_SQL, [ids])).rows : [];
  const rewrites = touched.map((r) => {
    const crossing = new Map(r.keys.filter((k) => crossed.has(k.think)).map((k) => [k.turn, templated(k.think)]));
    const turns = diagnosticsOf(r);
    const old = checker.settle(r.success, turns, []);
    const now = checker.settle(
      r.success,
      turns,
      r.turns.map((u) => crossing.get(u.index)),
    );
    if (old.tally !== null) tally = checker.add(tally, old.tally, -1);
    if (now.tally !== null) tally = checker.add(tally, now.tally);
    countFlags(r.flags, -1);
    countFlags(now.flags, 1);
    return rewriteOf(r, { ...now, hallucinated: now.flags.includes('hallucinated') });
  });
  let hallucinated = 0;
  const diagnosed = items.map((row, k) => {
    const marks = new Map(fresh[k]!.map((key) => [key.turn, templated(key.think)]));
    const now = checker.settle(
      row.success,
      own[k]!.turns,
      row.turns.map((u) => marks.get(u.index) ?? false),
    );
    if (now.tally !== null) tally = checker.add(tally, now.tally);
    const flagged = now.flags.includes('hallucinated');
    if (flagged) hallucinated++;
    countFlags(now.flags, 1);
    return {
      ...row,
      hallucinated: flagged,
      flags: now.flags,
      turns: row.turns.map((u, n) => ({ ...u, diagnostics: now.turns[n] ?? null })),
    };
  });
  await storeDiagnostics(client, runId, rewrites);
  const stored = await storeTrajectories(client, runId, diagnosed);
  const keys: TurnKeyRow[] = fresh.flatMap((rows, k) => rows.map((r) => ({ ...r, trajectoryId: stored[k]! })));
  await writeBatchState(client, runId, batch, { tally, distinct }, keys, { replace: false });
  // rewritten rows keep their claims (a template mark is not a claim); the new rows' are indexed as stored
  const sources = diagnosed.map((t, k) => ({ trajectoryId: stored[k]!, step: t.step, split: t.split, turns: t.turns }));
  const [pattern, claims] = [CLAIM_INDEX_COLUMNS.indexOf('pattern'), CLAIM_INDEX_COLUMNS.indexOf('claims')];
  for (const row of contradictedClaimRows(runId, sources)) count('claims', row[pattern] as string, row[claims] as number);
  return { metrics: checker.metrics(tally, distinct, batch.split), diagnosed: items.length + touched.length, hallucinated, counts };
}

/** A stored row's turn diagnostics, in turn order. */
const diagnosticsOf = (r: KeyedRow) => r.turns.map((u) => u.diagnostics);

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
