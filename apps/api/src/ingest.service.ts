import { ConflictException, Inject, Injectable } from '@nestjs/common';
import { finishRunSchema, ingestMetricsSchema, ingestTrajectoriesSchema } from '@starpo/contracts';
import { insertTrajectories, publishRunNotice, upsertMetricPoints, type Db, type Run } from '@starpo/db';
import { DB } from './tokens.js';
import { parseInput } from './validation.js';

/** Batch ingestion for external runs (trained elsewhere, tracked here). Every call is idempotent. */
@Injectable()
export class IngestService {
  constructor(@Inject(DB) private readonly db: Db) {}

  async metrics(run: Run, body: unknown): Promise<{ accepted: number }> {
    const req = parseInput(ingestMetricsSchema, body);
    this.assertOpen(run);
    const accepted = await upsertMetricPoints(
      this.db,
      run.id,
      req.points.map((p) => ({ key: p.key, step: p.step, value: p.value, time: p.time ? new Date(p.time * 1000) : undefined })),
    );
    const top = Math.max(...req.points.map((p) => p.step));
    await this.db.run.updateMany({ where: { id: run.id, currentStep: { lt: top } }, data: { currentStep: top } });
    const from = Math.min(...req.points.map((p) => p.step));
    await publishRunNotice(this.db, { run: run.id, type: 'metrics', step: top, ...(from < top ? { from } : {}) }).catch(() => {});
    return { accepted };
  }

  async trajectories(run: Run, body: unknown): Promise<{ accepted: number }> {
    const req = parseInput(ingestTrajectoriesSchema, body);
    this.assertOpen(run);
    const accepted = await insertTrajectories(
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
          snapshot: u.snapshot ?? {},
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
    );
    for (const step of new Set(req.trajectories.map((t) => t.step)))
      await publishRunNotice(this.db, { run: run.id, type: 'trajectories', step }).catch(() => {});
    return { accepted };
  }

  async finish(run: Run, body: unknown): Promise<void> {
    const req = parseInput(finishRunSchema, body);
    if (run.kind !== 'external') throw new ConflictException('only external runs are finished through the API');
    await this.db.run.update({
      where: { id: run.id },
      data: { status: req.status, stopReason: req.stopReason ?? null, finishedAt: new Date() },
    });
  }

  private assertOpen(run: Run): void {
    if (run.kind !== 'external') throw new ConflictException(`run ${run.id} is trained by a worker; only external runs take ingestion`);
    if (run.status !== 'running') throw new ConflictException(`run ${run.id} is ${run.status}; ingestion is closed`);
  }
}
