import { diagnoseStoredRows } from '@starpo/envs';
import type { BatchDiagnosis, StoredRow } from '@starpo/db';

/** A thread of the diagnosis pool: checks one step batch of stored trajectories. */
export default function diagnose({ rows, prefix }: { rows: StoredRow[]; prefix: string }): BatchDiagnosis {
  return diagnoseStoredRows(rows, prefix);
}
