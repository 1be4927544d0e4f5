import type { z } from 'zod';
import { ConflictException, Inject, Injectable } from '@nestjs/common';
import { finishRunSchema, ingestMetricsSchema, ingestTrajectoriesSchema, type RunNotice } from '@starpo/contracts';
import {
  finishExternalRun,
  ingestExternalMetricPoints,
  insertDiagnosedTrajectories,
  storedPointCount,
  touchExternalRun,
  type Db,
  type MetricPointInput,
  type Run,
} from '@starpo/db';
import type { Actor } from './auth/actor.js';
import { GroupCommit } from './group-commit.js';
import { RunsService } from './runs.service.js';
import { isUuid } from './validation.js';
import { turnSnapshot } from './turn-snapshot.js';
import { DiagnosisPool } from './diagnosis/diagnosis-pool.service.js';
import { DB } from './di-tokens.js';

/** Batch ingestion for external runs (trained elsewhere, tracked here). Every call is idempotent and counts as a heartbeat. */
@Injectable()
export class IngestService {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(DiagnosisPool) private readonly diagnosis: DiagnosisPool,
    @Inject(RunsService) private readonly runs: RunsService,
  ) {}

  /** Concurrent posts to one run share a statement (see GroupCommit); 10,000 points at most in one. */
  private readonly metricWrites = new GroupCommit<MetricWrite, number | null>(
    async (_, writes) => {
      const stored = await ingestExternalMetricPoints(
        this.db,
        writes[0]!.run,
        // concat, not flatMap: V8's flatMap spends about 75 ns a point here, concat copies the arrays whole
        ([] as MetricPointInput[]).concat(...writes.map((w) => w.points)),
        writes.map((w) => w.notice),
      );
      if (stored === null) return writes.map(() => null);
      // a lone write's count is the statement's; merged writes count their own points
      return writes.length === 1 ? [stored] : writes.map((w) => storedPointCount(w.points));
    },
    (w) => w.points.length,
    10_000,
  );

  /**
   * The happy path is one statement (points, heartbeat, step and live notice, behind a check that
   * the run is an open external run of the caller's team); only a refused write looks the run up,
   * to answer 404 or 409 as the other ingestion routes do.
   */
  async metrics(actor: Actor, runId: string, req: z.output<typeof ingestMetricsSchema>): Promise<{ accepted: number }> {
    let top = -Infinity;
    let from = Infinity;
    for (const p of req.points) {
      top = Math.max(top, p.step);
      from = Math.min(from, p.step);
    }
    // any ingestion keeps an external run alive (it is shown `crashed` after a silence) and advances its step
    const accepted = isUuid(runId)
      ? await this.metricWrites.submit(`${actor.teamId} ${runId}`, {
          run: { id: runId, teamId: actor.teamId },
          // a point without a time is already a MetricPointInput (no copy of 1,000 objects a request)
          points: req.points.map((p) => (p.time === undefined ? (p as MetricPointInput) : { ...p, time: new Date(p.time * 1000) })),
          notice: { run: runId, type: 'metrics', step: top, ...(from < top ? { from } : {}) },
        })
      : null;
    if (accepted !== null) return { accepted };
    this.assertOpen(await this.runs.find(actor, runId));
    throw new ConflictException(`run ${runId} changed while its metrics were written; send them again`);
  }

  /**
   * Stores the trajectories, each turn with the state it saw (the snapshot sent, else the board
   * read back from the observation text, else a note why there is none), and diagnoses every
   * (step, split) batch they join, in the request: the Diagnostics tab is current when this
   * returns (`npm run bench:ingest` times it).
   */
  async trajectories(run: Run, req: z.output<typeof ingestTrajectoriesSchema>): Promise<{ accepted: number; diagnosed: number }> {
    this.assertOpen(run);
    const { accepted, diagnosed } = await insertDiagnosedTrajectories(
      this.db,
      run.id,
      req.trajectories.map((t) => ({
        step: t.step,
        split: t.split,
        group: t.group,
        indexInGroup: t.indexInGroup,
        seed: t.seed,
        env: run.environment,
        success: t.success,
        totalReward: t.turns.reduce((s, u) => s + u.reward, 0),
        numActions: t.turns.reduce((s, u) => s + u.actions.length, 0),
        keptByFilter: null,
        turns: t.turns.map((u, index) => ({
          index,
          observation: u.observation,
          snapshot: turnSnapshot(run.environment, u.observation, u.snapshot),
          rawReply: u.rawReply,
          think: u.think,
          answer: u.answer,
          parsedActions: u.actions,
          validActions: u.actions,
          formatOk: u.formatOk,
          effectiveCount: u.actions.length,
          reward: u.reward,
          done: u.done,
          promptTokens: 0,
          responseTokens: 0,
          meanLogProb: null,
          meanEntropy: null,
        })),
      })),
      this.diagnosis.diagnose,
      this.diagnosis.incremental,
    );
    const steps = req.trajectories.map((t) => t.step);
    await touchExternalRun(
      this.db,
      run.id,
      Math.max(...steps),
      [...new Set(steps)].flatMap((step) => [
        { run: run.id, type: 'trajectories', step },
        { run: run.id, type: 'metrics', step },
      ]),
    );
    return { accepted, diagnosed };
  }

  async finish(run: Run, req: z.output<typeof finishRunSchema>): Promise<void> {
    if (run.kind !== 'external') throw new ConflictException('only external runs are finished through the API');
    await finishExternalRun(this.db, run.id, req.status, req.stopReason ?? null);
  }

  private assertOpen(run: Run): void {
    if (run.kind !== 'external') throw new ConflictException(`run ${run.id} is trained by a worker; only external runs take ingestion`);
    if (run.status !== 'running') throw new ConflictException(`run ${run.id} is ${run.status}; ingestion is closed`);
  }
}

/** One request's metric points, as they wait for a statement. */
interface MetricWrite {
  run: { id: string; teamId: string };
  points: MetricPointInput[];
  notice: RunNotice;
}
