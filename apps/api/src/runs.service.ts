import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  PRESETS,
  buildRunConfig,
  createRunSchema,
  isPresetName,
  toFieldErrors,
  ValidationError,
  type RunSummary,
  type MetricSeries,
} from '@starpo/contracts';
import type { Db, Run } from '@starpo/db';
import { DB } from './tokens.js';

const SUMMARY_KEYS = ['train/success', 'val/success', 'train/reward/mean', 'rollout/in_group_reward_std'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class RunsService {
  constructor(@Inject(DB) private readonly db: Db) {}

  /** Until team access lands, every run belongs to one default team. */
  private async defaultTeam(): Promise<string> {
    const t = (await this.db.team.findFirst({ where: { name: 'default' } })) ?? (await this.db.team.create({ data: { name: 'default' } }));
    return t.id;
  }

  async create(body: unknown): Promise<RunSummary> {
    const parsed = createRunSchema.safeParse(body);
    if (!parsed.success) throw new ValidationError(toFieldErrors(parsed.error), 'request');
    const req = parsed.data;
    const config = buildRunConfig(req.preset, req.config as never);
    const run = await this.db.run.create({
      data: {
        teamId: await this.defaultTeam(),
        name: req.name ?? `${req.preset ?? 'custom'}-${config.env.name}-${new Date().toISOString().slice(0, 19)}`,
        preset: req.preset && isPresetName(req.preset) ? PRESETS[req.preset].name : null,
        tags: req.tags,
        notes: req.notes,
        config: config as object,
        environment: config.env.name,
        algorithm: config.algorithm.advEstimator,
        totalSteps: config.training.steps,
        needsGpu: config.model.device === 'gpu',
      },
    });
    return this.summary(run, []);
  }

  async get(id: string): Promise<Run> {
    const run = UUID.test(id) ? await this.db.run.findUnique({ where: { id } }) : null;
    if (!run) throw new NotFoundException(`run ${id} not found`);
    return run;
  }

  async getSummary(id: string): Promise<RunSummary & { config: unknown; notes: string; error: string | null }> {
    const run = await this.get(id);
    const sums = await this.db.metricSummary.findMany({ where: { runId: id, key: { in: SUMMARY_KEYS } } });
    return { ...this.summary(run, sums), config: run.config, notes: run.notes, error: run.error };
  }

  async list(): Promise<RunSummary[]> {
    const runs = await this.db.run.findMany({ orderBy: { createdAt: 'desc' }, take: 200 });
    const sums = await this.db.metricSummary.findMany({ where: { runId: { in: runs.map((r) => r.id) }, key: { in: SUMMARY_KEYS } } });
    return runs.map((r) =>
      this.summary(
        r,
        sums.filter((s) => s.runId === r.id),
      ),
    );
  }

  async metrics(id: string, keys: string[]): Promise<MetricSeries[]> {
    await this.get(id);
    const rows = await this.db.metricPoint.findMany({
      where: { runId: id, ...(keys.length ? { key: { in: keys } } : {}) },
      orderBy: [{ key: 'asc' }, { step: 'asc' }],
    });
    const out = new Map<string, MetricSeries>();
    for (const r of rows) {
      const s = out.get(r.key) ?? { key: r.key, points: [] };
      s.points.push({ step: r.step, value: r.value, time: r.wallTime.getTime() / 1000 });
      out.set(r.key, s);
    }
    return [...out.values()];
  }

  private summary(r: Run, sums: { key: string; value: number; maxValue: number }[]): RunSummary {
    const latest = Object.fromEntries(sums.map((s) => [s.key, s.value]));
    return {
      id: r.id,
      name: r.name,
      status: r.status,
      stopReason: r.stopReason,
      environment: r.environment,
      algorithm: r.algorithm,
      preset: r.preset,
      tags: r.tags,
      currentStep: r.currentStep,
      totalSteps: r.totalSteps,
      createdAt: r.createdAt.toISOString(),
      startedAt: r.startedAt?.toISOString() ?? null,
      finishedAt: r.finishedAt?.toISOString() ?? null,
      latest,
      bestValSuccess: sums.find((s) => s.key === 'val/success')?.maxValue ?? null,
    };
  }
}
