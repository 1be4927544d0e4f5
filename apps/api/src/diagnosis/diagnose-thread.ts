import { diagnoseStoredRows, diagnoseStoredTurnRows } from '@starpo/envs';
import type { BatchDiagnosis, StoredRow } from '@starpo/db';

/** A thread of the diagnosis pool: checks one step batch of stored trajectories. */
export default function diagnose({ rows, prefix }: { rows: StoredRow[]; prefix: string }): BatchDiagnosis {
  return diagnoseStoredRows(rows, prefix);
}

/** Checks trajectories joining a batch that has a stored tally: each turn on its own, template marks left to the batch. */
export function turns({ rows }: { rows: StoredRow[] }): ReturnType<typeof diagnoseStoredTurnRows> {
  return diagnoseStoredTurnRows(rows);
}
