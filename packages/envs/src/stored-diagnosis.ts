import {
  diagnoseTurn,
  diagnosticsMetrics,
  markTemplates,
  trajectoryFlags,
  type DiagnosticFlag,
  type StepTurn,
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
}

/**
 * Runs the reasoning checks on every turn of one step's batch (one split): each turn's
 * diagnostics, each trajectory's flags, and the batch's `${prefix}/diag/…` metrics. Template
 * collapse is judged across the whole batch; turns without a state are left out of all of it.
 */
export function diagnoseStoredBatch(
  trajs: StoredTrajectory[],
  prefix: string,
): { results: StoredDiagnosis[]; metrics: Record<string, number> } {
  const stepTurns: StepTurn[] = [];
  const turns = trajs.map((t) =>
    t.turns.map((turn, i) => {
      if (!turn.snapshot) return null;
      const d = turn.known
        ? { ...turn.known, template: false }
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
      if (turn.formatOk) stepTurns.push({ think: turn.think, state: turn.snapshot, diagnostics: d });
      return d;
    }),
  );
  const distinct = markTemplates(stepTurns);
  const diagnosed = trajs.map((t, i) => ({ success: t.success, turns: turns[i]!.filter((d): d is TurnDiagnostics => d !== null) }));
  const flags = diagnosed.map(trajectoryFlags);
  const checked = diagnosed.flatMap((d, i) => (d.turns.length ? [i] : []));
  return {
    results: turns.map((d, i) => ({ turns: d, flags: flags[i]! })),
    metrics: diagnosticsMetrics(
      checked.map((i) => diagnosed[i]!),
      distinct,
      prefix,
      checked.map((i) => flags[i]!),
    ),
  };
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

/**
 * `diagnoseStoredBatch` on stored rows: a snapshot that is not a drawable state of the trajectory's
 * environment counts as unknown, and known diagnostics not in this checker's shape are not reused.
 */
export function diagnoseStoredRows(trajs: UncheckedTrajectory[], prefix: string): ReturnType<typeof diagnoseStoredBatch> {
  return diagnoseStoredBatch(
    trajs.map((t) => ({
      ...t,
      finalSnapshot: validSnapshot(t.env, t.finalSnapshot),
      turns: t.turns.map((u) => ({ ...u, snapshot: validSnapshot(t.env, u.snapshot), known: knownDiagnostics(u.known) })),
    })),
    prefix,
  );
}
