import { throwIfStopped } from '../util/stop.js';

/** Times a step's phases (timing_s/<phase>) and polls the stop request before each one. */
export class StepTimer {
  readonly timing: Record<string, number> = {};
  private readonly start = performance.now();

  constructor(
    private readonly step: number,
    private readonly signal: AbortSignal | undefined,
    private readonly onPhase?: (phase: string, step: number) => void,
  ) {}

  async time<T>(name: string, fn: () => Promise<T>): Promise<T> {
    throwIfStopped(this.signal);
    this.onPhase?.(name, this.step);
    const t0 = performance.now();
    const r = await fn();
    // a phase run once per mini-batch and epoch (update_actor, update_critic) reports its total
    this.timing[`timing_s/${name}`] = (this.timing[`timing_s/${name}`] ?? 0) + (performance.now() - t0) / 1000;
    return r;
  }

  /** Records and returns the step's length so far (timing_s/step). */
  stepSeconds(): number {
    return (this.timing['timing_s/step'] = (performance.now() - this.start) / 1000);
  }
}
