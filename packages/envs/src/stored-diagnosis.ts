import {
  addTallies,
  diagnoseTurn,
  distinctThinkRatio,
  EMPTY_TALLY,
  statesByThink,
  tallyMetrics,
  templateKeys,
  trajectoryFlags,
  trajectoryTally,
  type DiagnosisTally,
  type DiagnosticFlag,
  type TemplateKeys,
  type TurnDiagnostics,
} from './diagnostics/index.js';
import { validSnapshot } from './observation.js';
import type { EnvSnapshot } from './types.js';

/** Arm names count as moves in the bandit's think text ("I choose Dragon"). */
function actionWords(s: EnvSnapshot): string[] {
  return s.env === 'bandit' ? s.arms.map((a) => a.name) : [];
}

/** A trajectory as stored (database rows, JSONL export): what the checks need of it. */
export interface StoredTrajectory {
  env: string;
  success: boolean;
  finalSnapshot: EnvSnapshot | null;
  turns: {
    think: string;
    formatOk: boolean;
    parsedActions: string[];
    /** Actions the environment executed (stored rows: the valid ones; the trajectory cap only ever cuts a last turn short). */
    executed: string[];
    effectiveCount: number;
    /** The state the turn saw; null when none is known (a text the server could not read), and the turn goes unchecked. */
    snapshot: EnvSnapshot | null;
    /**
     * The turn's diagnostics when they are already known (stored rows that new ones join): a turn's
     * checks read only the turn, so they are kept, and only its template mark is judged again.
     */
    known?: TurnDiagnostics | null;
  }[];
}

export interface StoredDiagnosis {
  /** null for a turn without a known state. */
  turns: (TurnDiagnostics | null)[];
  flags: DiagnosticFlag[];
  /** Its share of the batch's tally; null when none of its turns has a known state (it is left out of the metrics). */
  tally: DiagnosisTally | null;
}

/** A trajectory's turns checked on their own: template marks not judged yet, and the keys they will be judged by. */
export interface TurnsDiagnosis {
  turns: (TurnDiagnostics | null)[];
  /** null for a turn template collapse leaves out (malformed, or without a known state). */
  keys: (TemplateKeys | null)[];
}

/** How many distinct think keys and distinct states the judged turns of a batch have. */
export interface DistinctCounts {
  thinks: number;
  states: number;
}

/** Each turn's own checks (a known turn keeps its diagnostics); template marks are left to the batch. */
export function diagnoseStoredTurns(trajs: StoredTrajectory[]): TurnsDiagnosis[] {
  return trajs.map((t) => {
    const keys: (TemplateKeys | null)[] = [];
    const turns = t.turns.map((turn, i) => {
      keys.push(turn.snapshot && turn.formatOk ? templateKeys(turn.think, turn.snapshot) : null);
      if (!turn.snapshot) return null;
      return turn.known
        ? turn.known
        : diagnoseTurn({
            env: t.env,
            think: turn.think,
            formatOk: turn.formatOk,
            answerActions: turn.parsedActions,
            executed: turn.executed,
            effectiveCount: turn.effectiveCount,
            before: turn.snapshot,
            after: i + 1 < t.turns.length ? t.turns[i + 1]!.snapshot : t.finalSnapshot,
            actionWords: actionWords(turn.snapshot),
          });
    });
    return { turns, keys };
  });
}

/**
 * A trajectory's diagnosis once its template marks are known: `templates[i]` is turn i's mark
 * (undefined keeps the mark it has), then its flags and its share of the batch's tally.
 */
export function settleStoredTrajectory(
  success: boolean,
  turns: (TurnDiagnostics | null)[],
  templates: (boolean | undefined)[],
): StoredDiagnosis {
  const marked = turns.map((d, i) => (d && templates[i] !== undefined ? { ...d, template: templates[i] } : d));
  const checked = { success, turns: marked.filter((d): d is TurnDiagnostics => d !== null) };
  const flags = trajectoryFlags(checked);
  return { turns: marked, flags, tally: checked.turns.length ? trajectoryTally(checked, flags) : null };
}

/** A batch's `${prefix}/diag/…` metrics from its tally and distinct counts. */
export function batchMetrics(tally: DiagnosisTally, distinct: DistinctCounts, prefix: string): Record<string, number> {
  return tallyMetrics(tally, distinctThinkRatio(distinct.thinks, distinct.states), prefix);
}

/**
 * Runs the reasoning checks on every turn of one step's batch (one split): each turn's
 * diagnostics, each trajectory's flags, and the batch's `${prefix}/diag/…` metrics. Template
 * collapse is judged across the whole batch; turns without a state are left out of all of it.
 * Also each turn's template keys, each trajectory's tally and the batch's distinct counts, from
 * which a batch is extended one request at a time.
 */
export function diagnoseStoredBatch(
  trajs: StoredTrajectory[],
  prefix: string,
): {
  results: (StoredDiagnosis & Pick<TurnsDiagnosis, 'keys'>)[];
  metrics: Record<string, number>;
  tally: DiagnosisTally;
  distinct: DistinctCounts;
} {
  const own = diagnoseStoredTurns(trajs);
  const keys = own.flatMap((t) => t.keys.filter((k): k is TemplateKeys => k !== null));
  const byThink = statesByThink(keys);
  const results = own.map((t, i) => ({
    ...settleStoredTrajectory(
      trajs[i]!.success,
      t.turns,
      t.keys.map((k) => k !== null && byThink.get(k.think)!.size > 1),
    ),
    keys: t.keys,
  }));
  const tally = results.reduce((sum, r) => (r.tally ? addTallies(sum, r.tally) : sum), EMPTY_TALLY);
  const distinct = { thinks: byThink.size, states: new Set(keys.map((k) => k.state)).size };
  return { results, metrics: batchMetrics(tally, distinct, prefix), tally, distinct };
}

/** A trajectory row read back from storage, whose snapshots are whatever was stored. */
export interface UncheckedTrajectory extends Omit<StoredTrajectory, 'finalSnapshot' | 'turns'> {
  finalSnapshot: unknown;
  turns: (Omit<StoredTrajectory['turns'][number], 'snapshot' | 'known'> & { snapshot: unknown; known?: unknown })[];
}

/** Stored diagnostics in the shape this checker writes (anything else is checked again). */
function knownDiagnostics(x: unknown): TurnDiagnostics | null {
  if (typeof x !== 'object' || x === null) return null;
  const d = x as Partial<TurnDiagnostics>;
  const shaped =
    d.v === 1 &&
    Array.isArray(d.claims) &&
    Array.isArray(d.decided) &&
    typeof d.contradicted === 'number' &&
    typeof d.checkable === 'number' &&
    typeof d.thinkAnswer === 'string' &&
    typeof d.outcome === 'string' &&
    typeof d.thinkWords === 'number' &&
    typeof d.trivialThink === 'boolean';
  return shaped ? (d as TurnDiagnostics) : null;
}

/** Stored rows as the checker reads them: a snapshot that is not a drawable state of the trajectory's environment counts as unknown. */
function readable(trajs: UncheckedTrajectory[]): StoredTrajectory[] {
  return trajs.map((t) => ({
    ...t,
    finalSnapshot: validSnapshot(t.env, t.finalSnapshot),
    turns: t.turns.map((u) => ({ ...u, snapshot: validSnapshot(t.env, u.snapshot), known: knownDiagnostics(u.known) })),
  }));
}

/**
 * `diagnoseStoredBatch` on stored rows: a snapshot that is not a drawable state of the trajectory's
 * environment counts as unknown, and known diagnostics not in this checker's shape are not reused.
 */
export function diagnoseStoredRows(trajs: UncheckedTrajectory[], prefix: string): ReturnType<typeof diagnoseStoredBatch> {
  return diagnoseStoredBatch(readable(trajs), prefix);
}

/** `diagnoseStoredTurns` on stored rows (read as `diagnoseStoredRows` reads them). */
export function diagnoseStoredTurnRows(trajs: UncheckedTrajectory[]): TurnsDiagnosis[] {
  return diagnoseStoredTurns(readable(trajs));
}

/**
 * What a batch that grows a request at a time needs of the checker besides the turns' own checks
 * (run those with `diagnoseStoredTurnRows`, off the event loop where it matters): settling a stored
 * or new trajectory once its template marks are known (stored diagnostics not in this checker's
 * shape count as unchecked turns), adding tallies, and the batch's metrics.
 */
export const storedBatchParts = {
  settle: (success: boolean, turns: unknown[], templates: (boolean | undefined)[]) =>
    settleStoredTrajectory(success, turns.map(knownDiagnostics), templates),
  add: addTallies,
  empty: EMPTY_TALLY,
  metrics: batchMetrics,
};
