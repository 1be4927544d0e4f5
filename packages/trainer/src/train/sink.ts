import type { RunProgress, RunWarning, TrainerRunStatus } from '@starpo/contracts';
import type { Trajectory } from '../rollout/types.js';

/** The statuses a trainer reports (contracts own the list). */
export type RunStatus = TrainerRunStatus;

export interface CheckpointPayload {
  step: number;
  /** File name → bytes (policy.safetensors, critic.safetensors, optimizer states, state.json, tokenizer…). */
  files: Map<string, Uint8Array>;
}

/**
 * Everything the trainer reports goes through a sink, so the CLI (files) and the worker
 * (database) drive the same loop. The trainer never imports database code.
 */
export interface TrainSink {
  status(update: { status: RunStatus; step: number; totalSteps: number; stopReason?: string; error?: string }): Promise<void>;
  metrics(step: number, values: Record<string, number>): Promise<void>;
  trajectories(step: number, trajectories: Trajectory[], kept: (t: Trajectory) => boolean | null): Promise<void>;
  checkpoint(payload: CheckpointPayload): Promise<void>;
  log(level: 'info' | 'warn' | 'error', message: string): Promise<void>;
  /** Live phase progress (optional: a sink without it just sees fewer updates). */
  progress?(p: RunProgress): Promise<void>;
  /** A warning that the run's training signal is missing; a sink without it gets the message as a `warn` log line. */
  warning?(w: RunWarning): Promise<void>;
}

/** A sink that only collects, for tests and embedding. */
export class MemorySink implements TrainSink {
  statuses: { status: RunStatus; step: number; stopReason?: string }[] = [];
  points = new Map<number, Record<string, number>>();
  trajs: { step: number; count: number; split: string }[] = [];
  checkpoints: CheckpointPayload[] = [];
  logs: string[] = [];
  progressed: RunProgress[] = [];
  warnings: RunWarning[] = [];
  async status(u: { status: RunStatus; step: number; stopReason?: string }): Promise<void> {
    this.statuses.push(u);
  }
  async metrics(step: number, values: Record<string, number>): Promise<void> {
    this.points.set(step, { ...(this.points.get(step) ?? {}), ...values });
  }
  async trajectories(step: number, t: Trajectory[]): Promise<void> {
    this.trajs.push({ step, count: t.length, split: t[0]?.split ?? 'train' });
  }
  async checkpoint(p: CheckpointPayload): Promise<void> {
    this.checkpoints.push(p);
  }
  async log(_level: string, message: string): Promise<void> {
    this.logs.push(message);
  }
  async progress(p: RunProgress): Promise<void> {
    this.progressed.push(p);
  }
  async warning(w: RunWarning): Promise<void> {
    this.warnings.push(w);
  }
}
