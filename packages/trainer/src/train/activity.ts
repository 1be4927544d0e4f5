import type { RunPhase, RunProgress } from '@starpo/contracts';
import { backendInfo } from '../backend.js';
import type { TrainSink } from './sink.js';

/** Progress updates closer together than this are coalesced (the last one always goes out). */
const MIN_INTERVAL_MS = 1000;

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The run's live activity: which phase it is in and how far along, sent to the sink as progress
 * and as log lines at each phase's start and end. Writes are chained, so they arrive in order and a
 * callback from inside a rollout (which cannot wait) never races the next one.
 */
export class RunActivity {
  private current: RunProgress | null = null;
  private chain: Promise<void> = Promise.resolve();
  private lastSent = 0;
  private pending = false;
  private stepStartedAt: number | null = null;
  private stepTimes: number[] = [];
  private validationSeconds: number | null = null;

  constructor(private readonly sink: TrainSink) {}

  /**
   * A phase begins: progress 0/total, and a log line. Await it before the phase's compute, which holds the
   * event loop for long stretches: the page then shows the phase as it starts.
   */
  begin(phase: RunPhase, step: number, total: number, unit: string, detail = ''): Promise<void> {
    const now = Date.now();
    if (phase === 'rollout') this.stepStartedAt = now;
    if (phase === 'validation') this.stepStartedAt = null;
    this.current = {
      phase,
      step,
      done: 0,
      total,
      unit,
      startedAt: now,
      at: now,
      stepStartedAt: this.stepStartedAt,
      stepSeconds: this.stepTimes.length ? this.stepTimes.reduce((a, b) => a + b, 0) / this.stepTimes.length : null,
      validationSeconds: this.validationSeconds,
      engine: backendInfo()?.engine,
    };
    this.send(true);
    this.log('info', `step ${step}: ${phase} started${total ? ` (${total} ${unit})` : ''}${detail ? `, ${detail}` : ''}`);
    return this.chain;
  }

  /** Progress within the phase; sent at most once a second unless it is the last. */
  advance(done: number): void {
    if (!this.current) return;
    this.current = { ...this.current, done: Math.min(done, this.current.total), at: Date.now() };
    this.send(done >= this.current.total);
  }

  /** The phase ends: a log line with its duration. */
  end(detail = ''): number {
    const p = this.current;
    if (!p) return 0;
    const ms = Date.now() - p.startedAt;
    if (p.phase === 'validation') this.validationSeconds = ms / 1000;
    this.advance(p.total);
    this.log('info', `step ${p.step}: ${p.phase} done in ${secs(ms)}${detail ? `: ${detail}` : ''}`);
    return ms / 1000;
  }

  /** A training step's measured length (without validation), for the ETA: the mean of the last five. */
  stepDone(seconds: number): void {
    this.stepTimes = [...this.stepTimes, seconds].slice(-5);
  }

  log(level: 'info' | 'warn' | 'error', message: string): void {
    this.enqueue(() => this.sink.log(level, message));
  }

  /** Every write so far has reached the sink. */
  async settled(): Promise<void> {
    await this.chain;
  }

  private send(force: boolean): void {
    if (!this.sink.progress) return;
    if (!force && Date.now() - this.lastSent < MIN_INTERVAL_MS) {
      // coalesce: the newest state goes out with the next update or at the phase's end
      if (!this.pending) {
        this.pending = true;
        setTimeout(() => {
          this.pending = false;
          this.send(true);
        }, MIN_INTERVAL_MS).unref?.();
      }
      return;
    }
    this.lastSent = Date.now();
    const p = this.current!;
    this.enqueue(() => this.sink.progress!(p));
  }

  private enqueue(write: () => Promise<void>): void {
    // live reporting is best effort: a failed write must not fail the run
    this.chain = this.chain.then(write).catch(() => {});
  }
}
