/** Every status a run row can hold (the database enum `RunStatus` has the same members). */
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'stopped_early'] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

/** Statuses a run never leaves on its own (only a resume puts a failed or cancelled run back in the queue). */
export const FINISHED_STATUSES = ['succeeded', 'failed', 'cancelled', 'stopped_early'] as const satisfies readonly RunStatusName[];
export type FinishedStatus = (typeof FINISHED_STATUSES)[number];

/** Whether a run in `status` is over (accepts display statuses too: `crashed` is not finished, it may revive). */
export function isFinishedStatus(status: string): status is FinishedStatus {
  return (FINISHED_STATUSES as readonly string[]).includes(status);
}

/** A failed or cancelled worker run may be resumed: it goes back to the queue and continues from its last checkpoint. */
export const RESUMABLE_STATUSES = ['failed', 'cancelled'] as const satisfies readonly FinishedStatus[];

/** The final statuses an external run's trainer may send (cancelling is the dashboard's). */
export const EXTERNAL_FINAL_STATUSES = ['succeeded', 'failed', 'stopped_early'] as const satisfies readonly FinishedStatus[];

/** Statuses a trainer reports for the run it trains (it never queues one). */
export type TrainerRunStatus = Exclude<RunStatusName, 'queued'>;

/** The stop reason of a run a user cancelled (the API, the database's sweeps and the worker record it alike). */
export const USER_CANCEL_REASON = 'cancelled by user';

/** Shown, never stored: an external run whose trainer has sent nothing for a while (its next ingestion revives it). */
export type RunDisplayStatus = RunStatusName | 'crashed';
