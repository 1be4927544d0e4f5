import { ConflictException, ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  PRESETS,
  buildRunConfig,
  cloneRunSchema,
  createBaseModelSchema,
  createRunSchema,
  isPresetName,
  listRunsQuerySchema,
  merge,
  updateRunSchema,
  validateRunConfig,
  ValidationError,
  type Page,
  type RunConfig,
  type RunProgress,
  type RunSummary,
} from '@starpo/contracts';
import { publishRunNotice, type Db, type Prisma, type Run, type RunQueue } from '@starpo/db';
import type { Actor } from './auth/actor.js';
import { externalRunColumns } from './external-run.js';
import { metricSort, pageByMetric } from './metric-sort.js';
import { DB, QUEUE, SETTINGS, type ApiSettings } from './tokens.js';
import { isUuid, likeLiteral, parseInput } from './validation.js';

const SUMMARY_KEYS = ['train/success', 'val/success', 'train/reward/mean', 'rollout/in_group_reward_std', 'train/entropy'];
const FINISHED = new Set(['succeeded', 'failed', 'cancelled', 'stopped_early']);

export type RunDetail = RunSummary & {
  config: unknown;
  /** The run's page on the dashboard (clients print it). */
  webUrl: string;
  notes: string;
  error: string | null;
  clonedFromId: string | null;
  resumeCount: number;
};

@Injectable()
export class RunsService {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(QUEUE) private readonly queue: RunQueue,
    @Inject(SETTINGS) private readonly settings: ApiSettings,
  ) {}

  async create(actor: Actor, body: unknown): Promise<RunDetail> {
    const req = parseInput(createRunSchema, body);
    // An external run keeps the config its trainer sent, whatever its shape; only ours are built from presets.
    const columns = req.external
      ? externalRunColumns(req.config ?? {})
      : configColumns(buildRunConfig(req.preset, (req.config ?? {}) as never));
    const run = await this.db.run.create({
      data: {
        teamId: actor.teamId,
        ownerId: actor.userId,
        kind: req.external ? 'external' : 'train',
        status: req.external ? 'running' : 'queued',
        startedAt: req.external ? new Date() : null,
        heartbeatAt: req.external ? new Date() : null,
        name:
          req.name ??
          `${req.preset ?? (req.external ? 'external' : 'custom')}-${columns.environment}-${new Date().toISOString().slice(0, 19)}`,
        preset: req.preset && isPresetName(req.preset) ? PRESETS[req.preset].name : null,
        tags: req.tags,
        notes: req.notes,
        ...columns,
      },
    });
    if (run.kind !== 'external') await this.dispatch(run);
    return this.detail(run);
  }

  /** Queue a pretrain job that produces a base model named `name` for the team (409 if the name is taken). */
  async createPretrain(actor: Actor, body: unknown): Promise<RunDetail> {
    const req = parseInput(createBaseModelSchema, body);
    const taken =
      (await this.db.baseModel.findFirst({ where: { teamId: actor.teamId, name: req.name } })) ??
      (await this.db.run.findFirst({
        where: { teamId: actor.teamId, kind: 'pretrain', name: `pretrain ${req.name}`, status: { in: ['queued', 'running'] } },
      }));
    if (taken) throw new ConflictException(`a base model named "${req.name}" exists or is being pretrained`);
    const run = await this.db.run.create({
      data: {
        teamId: actor.teamId,
        ownerId: actor.userId,
        kind: 'pretrain',
        name: `pretrain ${req.name}`,
        config: { pretrain: req },
        environment: req.env,
        algorithm: 'sft',
      },
    });
    await this.dispatch(run);
    return this.detail(run);
  }

  /** A run of the caller's team, else 404 (another team's run is indistinguishable from none). */
  async find(actor: Actor, id: string): Promise<Run> {
    const run = isUuid(id) ? await this.db.run.findFirst({ where: { id, teamId: actor.teamId } }) : null;
    if (!run) throw new NotFoundException(`run ${id} not found`);
    return run;
  }

  async get(actor: Actor, id: string): Promise<RunDetail> {
    return this.detail(await this.find(actor, id));
  }

  async list(actor: Actor, query: unknown): Promise<Page<RunSummary>> {
    const q = parseInput(listRunsQuerySchema, query, 'query');
    const byMetric = metricSort(q.sort);
    const [field, dir] = q.sort.startsWith('-')
      ? [q.sort.slice(1) as 'createdAt' | 'name', 'desc' as const]
      : [q.sort as 'createdAt' | 'name', 'asc' as const];
    const where: Prisma.RunWhereInput = {
      teamId: actor.teamId,
      ...(q.status?.length ? { status: { in: q.status } } : {}),
      ...(q.environment ? { environment: q.environment } : {}),
      ...(q.algorithm ? { algorithm: q.algorithm } : {}),
      ...(q.owner ? { ownerId: q.owner } : {}),
      ...(q.tag ? { tags: { has: q.tag } } : {}),
      ...(q.q
        ? {
            OR: [
              { name: { contains: likeLiteral(q.q), mode: 'insensitive' } },
              { notes: { contains: likeLiteral(q.q), mode: 'insensitive' } },
              { tags: { has: q.q } },
            ],
          }
        : {}),
    };
    const keys = [...new Set([...SUMMARY_KEYS, ...(q.metrics ?? []), ...(byMetric ? [byMetric.key] : [])])];
    if (byMetric) {
      const { rows, nextCursor } = await pageByMetric(this.db, where, byMetric, q.limit, q.cursor);
      return { items: await this.summaries(rows, keys), nextCursor };
    }
    const cursor = q.cursor ? decodeCursor(q.cursor, field) : null;
    const op = dir === 'desc' ? 'lt' : 'gt';
    const after: Prisma.RunWhereInput | undefined = cursor
      ? { OR: [{ [field]: { [op]: cursor.v } }, { [field]: cursor.v, id: { [op]: cursor.id } }] }
      : undefined;
    const rows = await this.db.run.findMany({
      where: after ? { AND: [where, after] } : where,
      orderBy: [{ [field]: dir }, { id: dir }],
      take: q.limit + 1,
    });
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      items: await this.summaries(page, keys),
      nextCursor: rows.length > q.limit && last ? encodeCursor(field === 'name' ? last.name : last.createdAt.toISOString(), last.id) : null,
    };
  }

  /** The list's rows with the last values of `keys` and their warnings. */
  private async summaries(page: Run[], keys: string[]): Promise<RunSummary[]> {
    const ids = page.map((r) => r.id);
    const sums = await this.db.metricSummary.findMany({ where: { runId: { in: ids }, key: { in: keys } } });
    const warnings = await this.warningCodes(ids);
    return page.map((r) =>
      summary(
        r,
        sums.filter((s) => s.runId === r.id),
        this.settings.externalStaleMs,
        warnings.get(r.id),
      ),
    );
  }

  async update(actor: Actor, id: string, body: unknown): Promise<RunDetail> {
    const req = parseInput(updateRunSchema, body);
    await this.find(actor, id);
    return this.detail(await this.db.run.update({ where: { id }, data: req }));
  }

  /** Queued: cancelled at once. Running: the worker stops at its next phase boundary and checkpoints. */
  async cancel(actor: Actor, id: string): Promise<RunDetail> {
    const run = await this.find(actor, id);
    if (FINISHED.has(run.status)) throw new ConflictException(`run ${id} is ${run.status} already`);
    const res = await this.db.run.updateMany({
      where: { id, status: 'queued' },
      data: { status: 'cancelled', stopReason: 'cancelled by user', finishedAt: new Date(), cancelRequestedAt: new Date() },
    });
    if (res.count === 0) {
      const data: Prisma.RunUpdateManyMutationInput =
        run.kind === 'external'
          ? { status: 'cancelled', stopReason: 'cancelled by user', finishedAt: new Date() }
          : { cancelRequestedAt: new Date() };
      await this.db.run.updateMany({ where: { id, status: 'running' }, data });
    }
    await this.notifyStatus(id);
    return this.get(actor, id);
  }

  async clone(actor: Actor, id: string, body: unknown): Promise<RunDetail> {
    const req = parseInput(cloneRunSchema, body);
    const src = await this.find(actor, id);
    const checked = validateRunConfig(merge(src.config as RunConfig, req.config as never));
    if (!checked.ok) throw new ValidationError(checked.errors);
    const config = checked.config;
    const run = await this.db.run.create({
      data: {
        teamId: actor.teamId,
        ownerId: actor.userId,
        name: req.name ?? `${src.name} (clone)`,
        preset: src.preset,
        tags: req.tags ?? src.tags,
        notes: req.notes ?? src.notes,
        ...configColumns(config),
        clonedFromId: src.id,
      },
    });
    await this.dispatch(run);
    return this.detail(run);
  }

  /** A failed or cancelled run goes back to the queue; the worker continues from its last checkpoint. */
  async resume(actor: Actor, id: string): Promise<RunDetail> {
    const run = await this.find(actor, id);
    if (run.kind === 'external') throw new ConflictException('an external run is fed by its own trainer; it cannot be resumed here');
    const res = await this.db.run.updateMany({
      where: { id, status: { in: ['failed', 'cancelled'] } },
      data: {
        status: 'queued',
        stopReason: null,
        error: null,
        finishedAt: null,
        cancelRequestedAt: null,
        workerId: null,
        resumeCount: { increment: 1 },
      },
    });
    if (res.count === 0) throw new ConflictException(`run ${id} is ${run.status}; only failed or cancelled runs resume`);
    await this.dispatch(run);
    await this.notifyStatus(id);
    return this.get(actor, id);
  }

  /**
   * The run's owner or a team owner; a running run must be cancelled first (a cancel that its worker
   * never honours, a dead or frozen one, still lets the run be deleted). Cascades to all its data;
   * a worker still training it finds its lease gone and stops.
   */
  async remove(actor: Actor, id: string): Promise<void> {
    const run = await this.find(actor, id);
    if (run.ownerId !== actor.userId && actor.role !== 'owner')
      throw new ForbiddenException('only the run owner or a team owner may delete it');
    if (run.status === 'running' && run.kind !== 'external' && !run.cancelRequestedAt)
      throw new ConflictException(`run ${id} is running; cancel it first`);
    await this.db.run.delete({ where: { id } });
  }

  /** Announce a queued run to the workers. A lost dispatch is re-sent by the workers' sweep, so this never fails a request. */
  private async dispatch(run: Run): Promise<void> {
    await this.queue.dispatch(run.id, run.needsGpu).catch(() => {});
  }

  /** Tell live clients (through every API instance) that the run's status changed. */
  async notifyStatus(id: string): Promise<void> {
    await publishRunNotice(this.db, { run: id, type: 'status' }).catch(() => {});
  }

  /** The warning codes each run raised (warnings are log lines with a code). */
  private async warningCodes(runIds: string[]): Promise<Map<string, string[]>> {
    const rows = runIds.length
      ? await this.db.runLog.groupBy({
          by: ['runId', 'code'],
          where: { runId: { in: runIds }, code: { not: null } },
          orderBy: { runId: 'asc' },
        })
      : [];
    const out = new Map<string, string[]>();
    for (const r of rows) out.set(r.runId, [...(out.get(r.runId) ?? []), r.code!]);
    return out;
  }

  /** A queued run's place in the queue: the queued runs the workers will claim before it, plus one. */
  private async queuePosition(run: Run): Promise<number | null> {
    if (run.status !== 'queued') return null;
    const ahead = await this.db.run.count({
      where: {
        status: 'queued',
        kind: { not: 'external' },
        OR: [{ createdAt: { lt: run.createdAt } }, { createdAt: run.createdAt, id: { lt: run.id } }],
      },
    });
    return ahead + 1;
  }

  async detail(run: Run): Promise<RunDetail> {
    const sums = await this.db.metricSummary.findMany({ where: { runId: run.id, key: { in: SUMMARY_KEYS } } });
    return {
      ...summary(run, sums, this.settings.externalStaleMs, (await this.warningCodes([run.id])).get(run.id), await this.queuePosition(run)),
      config: run.config,
      webUrl: `${this.settings.webOrigin.split(',')[0]!.trim()}/runs/${run.id}`,
      notes: run.notes,
      error: run.error,
      clonedFromId: run.clonedFromId,
      resumeCount: run.resumeCount,
    };
  }
}

/** The run columns derived from its config (indexed for listing and routing). */
function configColumns(config: RunConfig) {
  return {
    config: config as object,
    environment: config.env.name,
    algorithm: config.algorithm.advEstimator,
    totalSteps: config.training.steps,
    needsGpu: config.model.device === 'gpu',
  };
}

/** How long an external run may go without ingestion before it is shown as crashed (W&B does the same). */
export const DEFAULT_EXTERNAL_STALE_MS = 10 * 60_000;

export function summary(
  r: Run,
  sums: { key: string; value: number; maxValue: number }[],
  externalStaleMs = DEFAULT_EXTERNAL_STALE_MS,
  warnings: string[] = [],
  queuePosition: number | null = null,
): RunSummary {
  // Derived, not stored: the next ingestion revives the run without any write here.
  const silent = r.kind === 'external' && r.status === 'running' && Date.now() - (r.heartbeatAt ?? r.createdAt).getTime() > externalStaleMs;
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    ownerId: r.ownerId,
    status: silent ? 'crashed' : r.status,
    cancelRequested: r.cancelRequestedAt !== null && !FINISHED.has(r.status),
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
    latest: Object.fromEntries(sums.map((s) => [s.key, s.value])),
    bestValSuccess: sums.find((s) => s.key === 'val/success')?.maxValue ?? null,
    warnings,
    progress: r.status === 'running' ? (r.progress as RunProgress | null) : null,
    queuePosition,
  };
}

function encodeCursor(v: string, id: string): string {
  return Buffer.from(JSON.stringify({ v, id })).toString('base64url');
}

function decodeCursor(s: string, field: 'createdAt' | 'name'): { v: string | Date; id: string } {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString()) as { v: unknown; id: unknown };
    if (typeof c.v === 'string' && !c.v.includes('\u0000') && typeof c.id === 'string' && isUuid(c.id)) {
      const v = field === 'createdAt' ? new Date(c.v) : c.v;
      // a date Postgres can compare with (JS dates reach further back than timestamptz)
      if (!(v instanceof Date) || Math.abs(v.getFullYear() - 2000) < 8000) return { v, id: c.id };
    }
  } catch {
    /* fall through */
  }
  throw new ValidationError([{ path: 'cursor', message: 'not a cursor from this listing' }], 'query');
}
