/** The owner's heartbeat (heartbeatRun, and the heartbeat thread's own connection): one row while the lease holds. */
export const HEARTBEAT_SQL = `UPDATE runs SET heartbeat_at = now() WHERE id = $1::uuid AND lease_epoch = $2 AND status = 'running'
     RETURNING cancel_requested_at IS NOT NULL AS cancel, stop_reason`;

/** What a heartbeat row says: whether a cancel was requested, and the stop reason it left (naming who). */
export interface HeartbeatRow {
  cancel: boolean;
  stop_reason: string | null;
}
