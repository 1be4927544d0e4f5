import type { z } from 'zod';
import { createHash } from 'node:crypto';
import { ConflictException, ForbiddenException, Inject, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import {
  PRESETS,
  buildRunConfig,
  cloneRunSchema,
  pruneRunSchema,
  isPresetName,
  logsQuerySchema,
  merge,
  updateRunSchema,
  validateRunConfig,
  ValidationError,
  isFinishedStatus,
  runOwnershipRefusal,
  valEpisodes,
  valVerdict,
  type CheckpointInfo,
  type LogLine,
  type PruneResult,
  type Page,
  type RunConfig,
  type RunConfigOverrides,
  type RunDetail,
  type RunProgress,
  type RunOwnerAction,
  type RunSummary,
  type CreateBaseModelRequest,
  type CreateRunRequest,
  type ListRunsQuery,
  type ValPoint,
} from '@starpo/contracts';
import {
  baseModelNameTaken,
  canTransition,
  cancelRun,
  classifyModelBase,
  MODEL_BASE_REFUSED,
  deleteRun,
  deletionRefusal,
  pruneRun,
  findTeamRun,
  firstAndLastMetricPoints,
  initialRunStatus,
  insertRun,
  insertRunOnce,
  listTeamRuns,
  metricSort,
  pageByMetric,
  teamRunsWhere,
  publishRunNotice,
  queuePosition,
  resumeRun,
  runCheckpoints,
  runLogLines,
  runSummaryMetrics,
  runWarningCodes,
  updateRunMetadata,
  type Db,
  type Run,
  type RunQueue,
} from '@starpo/db';
import type { Actor } from './auth/actor.js';
import { EnvRegistrationsService } from './env-registrations.service.js';
import { externalRunColumns } from './external-run.js';
import { DB, QUEUE, SETTINGS, type ApiSettings } from './di-tokens.js';
import { isUuid } from './validation.js';

const VAL_SUCCESS = 'val/success';
const SUMMARY_KEYS = ['train/success', VAL_SUCCESS, 'train/reward/mean', 'rollout/in_group_reward_std', 'train/entropy'];

@Injectable()
export class RunsService {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(QUEUE) private readonly queue: RunQueue,
    @Inject(SETTINGS) private readonly settings: ApiSettings,
    @Inject(EnvRegistrationsService) private readonly envRegistrations: EnvRegistrationsService,
  ) {}

  /**
   * `idempotencyKey`: the Idempotency-Key header. A key the caller (this API token, or this user's
   * session) used within 24 h returns that run (`created: false`), or a 422 when its body differed.
   */
  async create(actor: Actor, req: CreateRunRequest, idempotencyKey?: string): Promise<{ detail: RunDetail; created: boolean }> {
    if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
      throw new ValidationError([{ path: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }]);
    }
    // An external run keeps the config its trainer sent, whatever its shape; only ours are built from presets.
    const config = req.external
      ? null
      : buildRunConfig(req.preset, await this.envRegistrations.resolve(actor, (req.config ?? {}) as RunConfigOverrides));
    if (config) await this.checkModelBase(actor, config);
    const columns = config ? configColumns(config) : externalRunColumns(req.config ?? {});
    const kind = req.external ? 'external' : 'train';
    const data: Parameters<typeof insertRun>[1] = {
      teamId: actor.teamId,
      ownerId: actor.userId,
      kind,
      ...initialRunStatus(kind),
      name:
        req.name ??
        `${req.preset ?? (req.external ? 'external' : 'custom')}-${columns.environment}-${new Date().toISOString().slice(0, 19)}`,
      preset: req.preset && isPresetName(req.preset) ? PRESETS[req.preset].name : null,
      tags: req.tags,
      notes: req.notes,
      ...columns,
    };
    const { run, created, sameBody } = idempotencyKey
      ? await insertRunOnce(
          this.db,
          { teamId: actor.teamId, callerId: actor.tokenId ?? actor.userId, key: idempotencyKey, bodyHash: bodyHash(req) },
          data,
        )
      : { run: await insertRun(this.db, data), created: true, sameBody: true };
    if (!sameBody) {
      // as the IETF Idempotency-Key draft asks: a reused key is refused, never answered with another request's run
      const message = `Idempotency-Key "${idempotencyKey}" was used with a different request body within 24 h; send a new key for a new request`;
      throw new UnprocessableEntityException({ error: 'idempotency_key_reused', message, details: [{ path: 'Idempotency-Key', message }] });
    }
    if (created && run.kind !== 'external') await this.dispatch(run);
    return { detail: await this.detail(run), created };
  }

  /** Queue a pretrain job that produces a base model named `name` for the team (409 if the name is taken). */
  async createPretrain(actor: Actor, req: CreateBaseModelRequest): Promise<RunDetail> {
    if (await baseModelNameTaken(this.db, actor.teamId, req.name))
      throw new ConflictException(`a base model named "${req.name}" exists or is being pretrained`);
    const run = await insertRun(this.db, {
      teamId: actor.teamId,
      ownerId: actor.userId,
      kind: 'pretrain',
      ...initialRunStatus('pretrain'),
      name: `pretrain ${req.name}`,
      config: { pretrain: req },
      environment: req.env,
      algorithm: 'sft',
    });
    await this.dispatch(run);
    return this.detail(run);
  }

  /** model.base must name something the team may load (see classifyModelBase): else 400, before any file is touched. */
  private async checkModelBase(actor: Actor, config: RunConfig): Promise<void> {
    if (await classifyModelBase(this.db, actor.teamId, config.model.base)) return;
    throw new ValidationError([{ path: 'model.base', message: `"${config.model.base}" is ${MODEL_BASE_REFUSED}` }]);
  }

  /** A run of the caller's team, else 404 (another team's run is indistinguishable from none). */
  async find(actor: Actor, id: string): Promise<Run> {
    const run = isUuid(id) ? await findTeamRun(this.db, actor.teamId, id) : null;
    if (!run) throw new NotFoundException(`run ${id} not found`);
    return run;
  }

  /**
   * A run of the caller's team that the caller may `action` (members: their own runs; team owners and
   * administrators: any), else 404 or 403; with who the caller is, for the run's log.
   */
  private async owned(actor: Actor, id: string, action: RunOwnerAction): Promise<{ run: Run; by: string }> {
    const run = await this.find(actor, id);
    const user = await this.db.user.findUniqueOrThrow({ where: { id: actor.userId }, select: { name: true, email: true, isAdmin: true } });
    const refusal = runOwnershipRefusal({ userId: actor.userId, role: actor.role, admin: user.isAdmin }, run, action);
    if (refusal) throw new ForbiddenException(refusal);
    return { run, by: user.name.trim() || user.email };
  }

  async get(actor: Actor, id: string): Promise<RunDetail> {
    return this.detail(await this.find(actor, id));
  }

  async list(actor: Actor, q: ListRunsQuery): Promise<Page<RunSummary>> {
    const byMetric = metricSort(q.sort);
    const [field, dir] = q.sort.startsWith('-')
      ? [q.sort.slice(1) as 'createdAt' | 'name', 'desc' as const]
      : [q.sort as 'createdAt' | 'name', 'asc' as const];
    const keys = [...new Set([...SUMMARY_KEYS, ...(q.metrics ?? []), ...(byMetric ? [byMetric.key] : [])])];
    if (byMetric) {
      const { rows, nextCursor } = await pageByMetric(this.db, teamRunsWhere(actor.teamId, q), byMetric, q.limit, q.cursor);
      return { items: await this.summaries(rows, keys), nextCursor };
    }
    const rows = await listTeamRuns(this.db, actor.teamId, {
      ...q,
      sort: { field, dir },
      after: q.cursor ? decodeCursor(q.cursor, field) : null,
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
    // independent reads: on three connections at once, the page waits for the slowest, not the sum
    const [sums, warnings, vals] = await Promise.all([
      runSummaryMetrics(this.db, ids, keys),
      runWarningCodes(this.db, ids),
      firstAndLastMetricPoints(this.db, ids, VAL_SUCCESS),
    ]);
    return page.map((r) =>
      summary(
        r,
        sums.filter((s) => s.runId === r.id),
        this.settings.externalStaleMs,
        warnings.get(r.id),
        null,
        vals.get(r.id),
      ),
    );
  }

  async update(actor: Actor, id: string, req: z.output<typeof updateRunSchema>): Promise<RunDetail> {
    await this.owned(actor, id, 'edit');
    return this.detail(await updateRunMetadata(this.db, id, req));
  }

  /** Queued: cancelled at once. Running: the worker stops at its next phase boundary and checkpoints. */
  async cancel(actor: Actor, id: string): Promise<RunDetail> {
    const { run, by } = await this.owned(actor, id, 'cancel');
    if (!canTransition('cancel', run.status)) throw new ConflictException(`run ${id} is ${run.status} already`);
    await cancelRun(this.db, run, by);
    await this.notifyStatus(id);
    return this.get(actor, id);
  }

  async clone(actor: Actor, id: string, req: z.output<typeof cloneRunSchema>): Promise<RunDetail> {
    const src = await this.find(actor, id);
    const checked = validateRunConfig(merge(src.config as RunConfig, req.config as never));
    if (!checked.ok) throw new ValidationError(checked.errors);
    const config = checked.config;
    await this.checkModelBase(actor, config);
    const run = await insertRun(this.db, {
      teamId: actor.teamId,
      ownerId: actor.userId,
      ...initialRunStatus('train'),
      name: req.name ?? `${src.name} (clone)`,
      preset: src.preset,
      tags: req.tags ?? src.tags,
      notes: req.notes ?? src.notes,
      ...configColumns(config),
      clonedFromId: src.id,
    });
    await this.dispatch(run);
    return this.detail(run);
  }

  /** A failed or cancelled run goes back to the queue; the worker continues from its last checkpoint. */
  async resume(actor: Actor, id: string): Promise<RunDetail> {
    const { run } = await this.owned(actor, id, 'resume');
    if (run.kind === 'external') throw new ConflictException('an external run is fed by its own trainer; it cannot be resumed here');
    if (!(await resumeRun(this.db, id))) throw new ConflictException(`run ${id} is ${run.status}; only failed or cancelled runs resume`);
    await this.dispatch(run);
    await this.notifyStatus(id);
    return this.get(actor, id);
  }

  /** The run's creator, a team owner or an administrator, when `deletionRefusal` allows; cascades to all its data. */
  async remove(actor: Actor, id: string): Promise<void> {
    const { run } = await this.owned(actor, id, 'delete');
    const refusal = deletionRefusal(run);
    if (refusal) throw new ConflictException(`run ${id} ${refusal}`);
    await deleteRun(this.db, id);
  }

  /** Delete a run's old checkpoints and raw trajectories by the policy in `body` (metrics stay). */
  async prune(actor: Actor, id: string, body: z.output<typeof pruneRunSchema>): Promise<PruneResult> {
    await this.owned(actor, id, 'prune');
    const { dryRun, ...policy } = body;
    return { dryRun, ...(await pruneRun(this.db, id, policy, dryRun)) };
  }

  async checkpoints(actor: Actor, id: string): Promise<CheckpointInfo[]> {
    await this.find(actor, id);
    return (await runCheckpoints(this.db, id)).map((c) => ({
      id: c.id,
      step: c.step,
      kind: c.kind,
      format: c.format,
      sizeBytes: Number(c.sizeBytes),
      sha256: c.sha256,
      createdAt: c.createdAt.toISOString(),
    }));
  }

  /** Log lines after id `after` (for tailing); `warnings=1`: only the warnings (lines with a code). */
  async logs(actor: Actor, id: string, { after, warnings }: z.output<typeof logsQuerySchema>): Promise<LogLine[]> {
    await this.find(actor, id);
    const rows = await runLogLines(this.db, id, after !== undefined ? BigInt(after) : 0n, warnings === '1' || warnings === 'true');
    return rows.map((l) => ({ id: String(l.id), level: l.level, code: l.code, message: l.message, at: l.at.toISOString() }));
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
    const sums = await runSummaryMetrics(this.db, [run.id], SUMMARY_KEYS);
    const warnings = (await runWarningCodes(this.db, [run.id])).get(run.id);
    const vals = (await firstAndLastMetricPoints(this.db, [run.id], VAL_SUCCESS)).get(run.id);
    return {
      ...summary(run, sums, this.settings.externalStaleMs, warnings, await queuePosition(this.db, run), vals),
      config: run.config as Record<string, unknown>,
      webUrl: `${this.settings.webOrigin.split(',')[0]!.trim()}/runs/${run.id}`,
      notes: run.notes,
      error: run.error,
      clonedFromId: run.clonedFromId,
      resumeCount: run.resumeCount,
    };
  }
}

/** The run columns derived from its config (indexed for listing and routing). */
/** sha256 of a request body with its objects' keys sorted, so a retry that orders them otherwise is the same request. */
function bodyHash(body: unknown): string {
  const sorted = (_: string, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v;
  return createHash('sha256').update(JSON.stringify(body, sorted)).digest('hex');
}

function configColumns(config: RunConfig) {
  return {
    config: config as object,
    environment: config.env.name,
    algorithm: config.algorithm.advEstimator,
    totalSteps: config.training.steps,
    needsGpu: config.model.device === 'gpu',
  };
}

export function summary(
  r: Run,
  sums: { key: string; value: number; maxValue: number; step?: number }[],
  /** How long an external run may go without ingestion before it is shown as crashed (W&B does the same; EXTERNAL_STALE_MS). */
  externalStaleMs: number,
  warnings: string[] = [],
  queuePosition: number | null = null,
  vals?: { first: ValPoint; last: ValPoint },
): RunSummary {
  const val = sums.find((s) => s.key === VAL_SUCCESS);
  const episodes = valEpisodes(r.config);
  // Derived, not stored: the next ingestion revives the run without any write here.
  const silent = r.kind === 'external' && r.status === 'running' && Date.now() - (r.heartbeatAt ?? r.createdAt).getTime() > externalStaleMs;
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    ownerId: r.ownerId,
    status: silent ? 'crashed' : r.status,
    cancelRequested: r.cancelRequestedAt !== null && !isFinishedStatus(r.status),
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
    bestValSuccess: val?.maxValue ?? null,
    valSuccessAtStart: vals?.first.value ?? null,
    valSuccessAtEnd: vals?.last.value ?? null,
    valEpisodes: episodes,
    valVerdict: isFinishedStatus(r.status) ? valVerdict(vals?.first, vals?.last, episodes) : null,
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
