import { snapshotFromObservation, validSnapshot } from '@starpo/envs';

/** What a turn stores when no board is known: why, and the snapshot as sent (if any), kept as it came. */
export interface MissingSnapshot {
  missing: string;
  sent?: unknown;
}

/**
 * The state snapshot an ingested turn stores: the one sent when it is a drawable state of the
 * run's environment, else the board rebuilt from the observation text, else a note saying why
 * there is no board (the replay then shows the text with that note).
 */
export function turnSnapshot(env: string, observation: string, sent: unknown): object | MissingSnapshot {
  const valid = sent === undefined ? null : validSnapshot(env, sent);
  if (valid) return valid;
  const parsed = snapshotFromObservation(env, observation);
  if (parsed.ok) return parsed.snapshot;
  return sent === undefined
    ? { missing: parsed.reason }
    : { missing: `the snapshot sent is not a ${env} state, and ${parsed.reason}`, sent };
}
