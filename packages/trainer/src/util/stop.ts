/**
 * A stop request (cancel, shutdown, lost lease) noticed inside a long phase. The training loop
 * catches it, checkpoints the last consistent state and ends the run with `reason`.
 */
export class StopRequested extends Error {
  constructor(readonly reason: string) {
    super(`stopped: ${reason}`);
    this.name = 'StopRequested';
  }
}

export const stopReason = (signal?: AbortSignal): string => (typeof signal?.reason === 'string' ? signal.reason : 'cancelled');

/** Throw StopRequested when `signal` was aborted (polled between tokens, turns and phases). */
export function throwIfStopped(signal?: AbortSignal): void {
  if (signal?.aborted) throw new StopRequested(stopReason(signal));
}
