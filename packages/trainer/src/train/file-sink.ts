import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Trajectory } from '../rollout/types.js';
import type { CheckpointPayload, RunStatus, TrainSink } from './sink.js';

/** Trajectory as stored: everything but the token arrays. */
export function trajectoryRecord(step: number, t: Trajectory, kept: boolean | null): Record<string, unknown> {
  return {
    step,
    split: t.split,
    group: t.group,
    indexInGroup: t.indexInGroup,
    seed: t.seed,
    env: t.env,
    success: t.success,
    totalReward: t.totalReward,
    envReward: t.envReward,
    penalty: t.penalty,
    numActions: t.numActions,
    keptByFilter: kept,
    hallucinated: t.flags?.includes('hallucinated') ?? false,
    flags: t.flags ?? [],
    finalSnapshot: t.finalSnapshot,
    turns: t.turns.map((x) => ({
      index: x.index,
      observation: x.observation,
      snapshot: x.snapshot,
      rawReply: x.rawReply,
      think: x.parsed.think,
      answer: x.parsed.answer,
      formatOk: x.parsed.formatOk,
      parsedActions: x.parsed.parsedActions,
      validActions: x.parsed.validActions,
      executed: x.executed,
      effectiveCount: x.effectiveCount,
      reward: x.envReward + x.penalty,
      done: x.done,
      promptTokens: x.promptTokens,
      responseTokens: x.responseTokens,
      meanLogProb: x.meanLogProb,
      meanEntropy: x.meanEntropy,
      diagnostics: x.diagnostics,
    })),
  };
}

/** The CLI's sink: metrics.jsonl, trajectories.jsonl, checkpoints/step-N/, status.json in one folder. */
export class FileSink implements TrainSink {
  constructor(
    readonly dir: string,
    private readonly onMetrics?: (step: number, values: Record<string, number>) => void,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  async status(u: { status: RunStatus; step: number; totalSteps: number; stopReason?: string; error?: string }): Promise<void> {
    writeFileSync(path.join(this.dir, 'status.json'), JSON.stringify({ ...u, at: new Date().toISOString() }, null, 2));
  }

  async metrics(step: number, values: Record<string, number>): Promise<void> {
    appendFileSync(path.join(this.dir, 'metrics.jsonl'), JSON.stringify({ step, time: Date.now() / 1000, ...values }) + '\n');
    this.onMetrics?.(step, values);
  }

  async trajectories(step: number, trajs: Trajectory[], kept: (t: Trajectory) => boolean | null): Promise<void> {
    appendFileSync(
      path.join(this.dir, 'trajectories.jsonl'),
      trajs.map((t) => JSON.stringify(trajectoryRecord(step, t, kept(t)))).join('\n') + '\n',
    );
  }

  async checkpoint(p: CheckpointPayload): Promise<void> {
    const dir = path.join(this.dir, 'checkpoints', `step-${String(p.step).padStart(6, '0')}`);
    mkdirSync(dir, { recursive: true });
    for (const [name, bytes] of p.files) writeFileSync(path.join(dir, name), bytes);
  }

  async log(level: string, message: string): Promise<void> {
    appendFileSync(path.join(this.dir, 'log.txt'), `${new Date().toISOString()} ${level} ${message}\n`);
    if (level !== 'info') console.error(`${level}: ${message}`);
  }
}

/** The newest checkpoint folder of a run folder, as files. */
export function latestCheckpoint(runDir: string): { step: number; files: Map<string, Uint8Array> } | null {
  const root = path.join(runDir, 'checkpoints');
  if (!existsSync(root)) return null;
  const dirs = readdirSync(root)
    .filter((d) => /^step-\d+$/.test(d))
    .sort();
  const last = dirs.at(-1);
  if (!last) return null;
  const files = new Map<string, Uint8Array>();
  for (const f of readdirSync(path.join(root, last))) files.set(f, readFileSync(path.join(root, last, f)));
  return { step: Number(last.slice(5)), files };
}
