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
  type RunSummary,
} from '@starpo/contracts';
import { publishRunNotice, type Db, type Prisma, type Run, type RunQueue } from '@starpo/db';
import type { Actor } from './auth/actor.js';
import { DB, QUEUE } from './tokens.js';
import { isUuid, likeLiteral, parseInput } from './validation.js';

const SUMMARY_KEYS = ['train/success', 'val/success', 'train/reward/mean', 'rollout/in_group_reward_std', 'train/entropy'];
const FINISHED = new Set(['succeeded', 'failed', 'cancelled', 'stopped_early']);

export type RunDetail = RunSummary & {
  config: unknown;
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
  ) {}

  async create(actor: Actor, body: unknown): Promise<RunDetail> {
    const req = parseInput(createRunSchema, body);
    const config = buildRunConfig(req.preset, (req.config ?? {}) as never);
    const run = await this.db.run.create({
      data: {
        teamId: actor.teamId,
        ownerId: actor.userId,
        kind: req.external ? 'external' : 'train',
        status: req.external ? 'running' : 'queued',
        startedAt: req.external ? new Date() : null,
        name: req.name ?? `${req.preset ?? 'custom'}-${config.env.name}-${new Date().toISOString().slice(0, 19)}`,
        preset: req.preset && isPresetName(req.preset) ? PRESETS[req.preset].name : null,
        tags: req.tags,
        notes: req.notes,
        ...configColumns(config),
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
    const sums = await this.db.metricSummary.findMany({ where: { runId: { in: page.map((r) => r.id) }, key: { in: SUMMARY_KEYS } } });
    const last = page.at(-1);
    return {
      items: page.map((r) =>
        summary(
          r,
          sums.filter((s) => s.runId === r.id),
        ),
      ),
      nextCursor: rows.length > q.limit && last ? encodeCursor(field === 'name' ? last.name : last.createdAt.toISOString(), last.id) : null,
    };
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

  /** The run's owner or a team owner; a running run must be cancelled first. Cascades to all its data. */
  async remove(actor: Actor, id: string): Promise<void> {
    const run = await this.find(actor, id);
    if (run.ownerId !== actor.userId && actor.role !== 'owner')
      throw new ForbiddenException('only the run owner or a team owner may delete it');
    if (run.status === 'running' && run.kind !== 'external') throw new ConflictException(`run ${id} is running; cancel it first`);
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

  async detail(run: Run): Promise<RunDetail> {
    const sums = await this.db.metricSummary.findMany({ where: { runId: run.id, key: { in: SUMMARY_KEYS } } });
    return {
      ...summary(run, sums),
      config: run.config,
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

export function summary(r: Run, sums: { key: string; value: number; maxValue: number }[]): RunSummary {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    ownerId: r.ownerId,
    status: r.status,
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
