import { z } from './zod.js';
import { PRETRAIN_DEFAULTS, PRETRAIN_ENVS, STARPO_TINY_SIZES } from './bases.js';
import { ROLES } from './roles.js';
import { runProgressSchema } from './run-activity.js';
import { EXTERNAL_FINAL_STATUSES, RUN_STATUSES } from './run-status.js';
import { valVerdictSchema } from './val-verdict.js';
import { INT32_MAX, INT32_MIN, INT64_MAX, MAX_UNIX_SECONDS } from './storable.js';

/** POST /api/runs body: a preset plus overrides (any RunConfig subset), with metadata. */
export const createRunSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    preset: z.string().optional(),
    /** Overrides of the preset's config; without a preset, the whole config ({} = every default). */
    config: z.record(z.string(), z.unknown()).optional(),
    tags: z.array(z.string().trim().min(1).max(50)).max(20).default([]),
    notes: z.string().max(10_000).default(''),
    /** Tracked only: trained elsewhere and fed through the ingestion endpoints (no worker claims it). */
    external: z.boolean().default(false),
  })
  .strict()
  .refine((r) => r.preset !== undefined || r.config !== undefined, {
    path: ['preset'],
    message: 'name a preset or give an explicit config ({} for the defaults)',
  });
export type CreateRunRequest = z.infer<typeof createRunSchema>;

/** A run as lists show it (GET /api/runs, and inside RunDetail). */
export const runSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['train', 'pretrain', 'external']),
  ownerId: z.string().nullable(),
  status: z.enum([...RUN_STATUSES, 'crashed']),
  /** A cancel was asked for and the worker has not stopped yet. */
  cancelRequested: z.boolean(),
  stopReason: z.string().nullable(),
  environment: z.string(),
  algorithm: z.string(),
  preset: z.string().nullable(),
  tags: z.array(z.string()),
  currentStep: z.number(),
  totalSteps: z.number(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** Latest value of key metrics (from the summary table). */
  latest: z.record(z.string(), z.number()),
  /** Best validation success so far (shown, never judged: see BEST_VAL_CAVEAT). */
  bestValSuccess: z.number().nullable(),
  /** Validation success of the first validation (step 0 with rollout.validation.beforeTraining: the policy before training). */
  valSuccessAtStart: z.number().nullable(),
  /** Validation success of the last validation so far. */
  valSuccessAtEnd: z.number().nullable(),
  /** Episodes per validation (rollout.validation.size); null when the run's config does not say. */
  valEpisodes: z.number().nullable(),
  /** A finished run's verdict on its first → last validation (valVerdict); null until it finishes. */
  valVerdict: valVerdictSchema.nullable(),
  /** Codes of the warnings the run raised (RUN_WARNING_CODES), each once. */
  warnings: z.array(z.string()),
  /** What the worker is doing now (running runs only). */
  progress: runProgressSchema.nullable(),
  /** 1 = next to be claimed (queued runs only). */
  queuePosition: z.number().nullable(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

export const metricSeriesSchema = z.object({
  key: z.string(),
  points: z.array(z.object({ step: z.number(), value: z.number(), time: z.number() })),
});
export type MetricSeries = z.infer<typeof metricSeriesSchema>;

const email = z.string().trim().toLowerCase().email().max(320);
const password = z.string().min(8, 'at least 8 characters').max(200);

/** POST /api/auth/signup: the first account creates the team; later ones need an invite token. */
export const signupSchema = z
  .object({
    email,
    password,
    name: z.string().trim().min(1).max(100),
    teamName: z.string().trim().min(1).max(100).optional(),
    invite: z.string().min(10).max(200).optional(),
  })
  .strict();
export type SignupRequest = z.infer<typeof signupSchema>;

export const loginSchema = z.object({ email, password: z.string().min(1).max(200) }).strict();
export type LoginRequest = z.infer<typeof loginSchema>;

export const createInviteSchema = z
  .object({ role: z.enum(ROLES).default('member'), email: email.optional(), expiresInHours: z.number().int().min(1).max(720).default(168) })
  .strict();
export const updateMemberSchema = z.object({ role: z.enum(ROLES) }).strict();
export const createTokenSchema = z.object({ name: z.string().trim().min(1).max(100) }).strict();

const roleSchema = z.enum(ROLES);

/** GET /api/auth/me: the caller, the team it acts for and its role there. */
export const meSchema = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string() }),
  /** The team the caller acts for (a session switches it with POST /api/auth/team). */
  team: z.object({ id: z.string(), name: z.string() }),
  role: roleSchema,
  /** Every team of the user, with the role in each. */
  teams: z.array(z.object({ id: z.string(), name: z.string(), role: roleSchema })),
  /** Administers the deployment (creates teams). */
  admin: z.boolean(),
});
export type Me = z.infer<typeof meSchema>;

export const createTeamSchema = z.object({ name: z.string().trim().min(1).max(100) }).strict();
export const switchTeamSchema = z.object({ teamId: z.string().uuid() }).strict();
export const joinTeamSchema = z.object({ invite: z.string().min(10).max(200) }).strict();

/** PATCH /api/runs/:id: editable metadata only. */
export const updateRunSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    tags: z.array(z.string().trim().min(1).max(50)).max(20).optional(),
    notes: z.string().max(10_000).optional(),
  })
  .strict();

/** POST /api/runs/:id/clone: a new run from this one's config plus overrides. */
export const cloneRunSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    config: z.record(z.string(), z.unknown()).default({}),
    tags: z.array(z.string().trim().min(1).max(50)).max(20).optional(),
    notes: z.string().max(10_000).optional(),
  })
  .strict();

/** POST /api/runs/:id/prune: what to keep of a run's checkpoints and trajectories (metrics always stay). */
export const pruneRunSchema = z
  .object({
    checkpoints: z
      .object({
        keepLast: z.number().int().min(1).default(1).describe('Newest complete checkpoint steps to keep (at least 1: resume reads it)'),
        keepBest: z.number().int().min(0).default(0).describe('Also keep the steps with the highest `metric` logged at their step'),
        metric: z.string().min(1).max(200).default('val/success'),
      })
      .strict()
      .optional(),
    trajectories: z
      .object({
        keepLastSteps: z.number().int().min(0).describe("Training steps, back from the run's newest, whose trajectories stay"),
        keepValidation: z.boolean().default(true),
      })
      .strict()
      .optional(),
    dryRun: z.boolean().default(false).describe('Count what would go, delete nothing'),
  })
  .strict()
  .refine((b) => b.checkpoints || b.trajectories, { message: 'name checkpoints, trajectories or both', path: ['checkpoints'] });

const csv = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .transform((s) => s.split(',').filter(Boolean))
    .pipe(z.array(item));

/**
 * A runs-list sort by a metric: its last (final) value, or its highest or lowest value so far
 * (best, for a metric that should rise or fall); `-` sorts descending. Runs without the metric go last.
 */
export const METRIC_SORT = /^(-?)(last|max|min):(\P{Cc}{1,200})$/u;

/** GET /api/runs query. */
export const listRunsQuerySchema = z
  .object({
    status: csv(z.enum(RUN_STATUSES)).optional(),
    environment: z.string().max(50).optional(),
    algorithm: z.string().max(50).optional(),
    owner: z.string().uuid().optional(),
    tag: z.string().max(50).optional(),
    q: z.string().max(200).optional(),
    sort: z
      .union([
        z.enum(['createdAt', '-createdAt', 'name', '-name']),
        z.string().regex(METRIC_SORT, 'createdAt, name, or last:/max:/min: and a metric key, optionally with a leading -'),
      ])
      .default('-createdAt'),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().max(500).optional(),
    /** Metric keys whose last value `latest` carries besides the usual ones (a metric column). */
    metrics: csv(z.string().max(200))
      .refine((keys) => keys.length <= 20, 'at most 20 metric keys')
      .optional(),
  })
  .strict();
export type ListRunsQuery = z.infer<typeof listRunsQuerySchema>;

/** A page of a cursor-paginated list; `pageSchema(item)` is its contract, `Page<T>` the same shape as a type. */
export const pageSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });
export type Page<T> = { items: T[]; nextCursor: string | null };

const step = z.coerce.number().int().min(0).max(INT32_MAX);

/** GET /api/runs/:id/metrics and GET /api/metrics (several runs). */
export const metricsQuerySchema = z
  .object({
    runs: csv(z.string().uuid()).optional(),
    keys: csv(z.string().max(200)).optional(),
    from: step.optional(),
    to: step.optional(),
    maxPoints: z.coerce.number().int().min(4).max(100_000).optional(),
    // columns: RunMetricColumns, parallel arrays instead of one object per point
    format: z.enum(['json', 'csv', 'columns']).default('json'),
  })
  .strict();
export type MetricsQuery = z.infer<typeof metricsQuerySchema>;

const bool = z.enum(['true', 'false']).transform((s) => s === 'true');

/** GET /api/runs/:id/trajectories (and .jsonl export). */
export const trajectoriesQuerySchema = z
  .object({
    from: step.optional(),
    to: step.optional(),
    split: z.enum(['train', 'val']).optional(),
    success: bool.optional(),
    hallucinated: bool.optional(),
    minReward: z.coerce.number().optional(),
    maxReward: z.coerce.number().optional(),
    environment: z.string().max(50).optional(),
    group: z.coerce.number().int().min(0).max(INT32_MAX).optional(),
    flag: z.string().max(100).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z.string().max(500).optional(),
    /** By step: `desc` lists the newest steps first (the dashboard's list). */
    order: z.enum(['asc', 'desc']).default('asc'),
  })
  .strict();
export type TrajectoriesQuery = z.infer<typeof trajectoriesQuerySchema>;

export const trajectorySummarySchema = z.object({
  id: z.string(),
  runId: z.string(),
  step: z.number(),
  split: z.enum(['train', 'val']),
  group: z.number(),
  indexInGroup: z.number(),
  seed: z.number(),
  environment: z.string(),
  success: z.boolean(),
  totalReward: z.number(),
  numTurns: z.number(),
  numActions: z.number(),
  keptByFilter: z.boolean().nullable(),
  hallucinated: z.boolean(),
  flags: z.array(z.string()),
});
export type TrajectorySummary = z.infer<typeof trajectorySummarySchema>;

/** GET /api/runs/:id/diagnostics: the most frequent contradicted claims in a step range. */
export const diagnosticsQuerySchema = z
  .object({
    from: step.optional(),
    to: step.optional(),
    split: z.enum(['train', 'val']).optional(),
    limit: z.coerce.number().int().min(1).max(50).default(10),
    examples: z.coerce.number().int().min(1).max(10).default(3),
  })
  .strict();
export type DiagnosticsQuery = z.infer<typeof diagnosticsQuerySchema>;

export const claimExampleSchema = z.object({
  trajectoryId: z.string(),
  step: z.number(),
  split: z.enum(['train', 'val']),
  turn: z.number(),
  /** The sentence of the think text. */
  text: z.string(),
  evidence: z.string().nullable(),
});
export type ClaimExample = z.infer<typeof claimExampleSchema>;

export const diagnosticsSummarySchema = z.object({
  from: z.number().nullable(),
  to: z.number().nullable(),
  trajectories: z.number(),
  /** Trajectories carrying each flag. */
  flags: z.record(z.string(), z.number()),
  /** Contradicted claims grouped by kind ("box position", "hole right of player"), most frequent first. */
  contradicted: z.array(z.object({ pattern: z.string(), count: z.number(), examples: z.array(claimExampleSchema) })),
});
export type DiagnosticsSummary = z.infer<typeof diagnosticsSummarySchema>;

/** POST /api/runs/:id/ingest/metrics: at most 1,000 points (and 1 MB) a request; idempotent on run+key+step. */
export const ingestMetricsSchema = z
  .object({
    points: z
      .array(
        z
          .object({
            key: z.string().min(1).max(200),
            step: z.number().int().min(0).max(INT32_MAX),
            value: z.number().finite(),
            /** Unix seconds. */
            time: z.number().positive().max(MAX_UNIX_SECONDS).optional(),
          })
          .strict(),
      )
      .min(1)
      .max(1000),
  })
  .strict();

const ingestTurn = z
  .object({
    observation: z.string().max(20_000),
    rawReply: z.string().max(50_000),
    think: z.string().max(50_000).default(''),
    answer: z.string().max(10_000).default(''),
    reward: z.number().finite(),
    done: z.boolean().default(false),
    formatOk: z.boolean().default(true),
    actions: z.array(z.string().max(50)).max(50).default([]),
    snapshot: z.unknown().optional(),
  })
  .strict();

/** POST /api/runs/:id/ingest/trajectories: idempotent on run+step+split+group+index. */
export const ingestTrajectoriesSchema = z
  .object({
    trajectories: z
      .array(
        z
          .object({
            step: z.number().int().min(0).max(INT32_MAX),
            split: z.enum(['train', 'val']).default('train'),
            group: z.number().int().min(0).max(INT32_MAX).default(0),
            indexInGroup: z.number().int().min(0).max(INT32_MAX).default(0),
            seed: z.number().int().min(INT32_MIN).max(INT32_MAX).default(0),
            success: z.boolean(),
            turns: z.array(ingestTurn).min(1).max(200),
          })
          .strict(),
      )
      .min(1)
      .max(1000)
      .superRefine(rejectDuplicateTrajectories),
  })
  .strict();

/** Two trajectories of one batch with the same identity would overwrite each other: name the later one. */
function rejectDuplicateTrajectories(
  items: { step: number; split: string; group: number; indexInGroup: number }[],
  ctx: z.RefinementCtx,
): void {
  const seen = new Map<string, number>();
  items.forEach((t, i) => {
    const id = `${t.step}/${t.split}/${t.group}/${t.indexInGroup}`;
    const first = seen.get(id);
    if (first === undefined) seen.set(id, i);
    else
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message: `same step, split, group and indexInGroup as trajectories.${first}; give each trajectory of a group its own indexInGroup`,
      });
  });
}

/** GET /api/runs/:id/logs: lines after the log id `after` (a bigint). */
export const logsQuerySchema = z
  .object({
    after: z
      .string()
      .regex(/^\d{1,19}$/, 'a log line id')
      .refine((s) => !/^\d+$/.test(s) || BigInt(s) <= INT64_MAX, 'beyond the range of log line ids')
      .optional(),
    /** Only the lines that carry a warning code. */
    warnings: z.enum(['0', '1', 'true', 'false']).optional(),
  })
  .strict();

/** POST /api/runs/:id/ingest/finish: an external run's final status. */
export const finishRunSchema = z.object({ status: z.enum(EXTERNAL_FINAL_STATUSES), stopReason: z.string().max(500).optional() }).strict();

/** POST /api/base-models: queue a warm-start pretrain job (the worker stores the model and registers it). */
export const createBaseModelSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[\w.-]+$/, 'letters, digits, _ . - only'),
    env: z.enum(PRETRAIN_ENVS),
    size: z.enum(STARPO_TINY_SIZES).default(PRETRAIN_DEFAULTS.size),
    dialogues: z.number().int().min(10).max(50_000).default(PRETRAIN_DEFAULTS.dialogues),
    epochs: z.number().int().min(1).max(20).default(PRETRAIN_DEFAULTS.epochs),
    batchSize: z.number().int().min(1).max(256).default(PRETRAIN_DEFAULTS.batchSize),
    lr: z.number().positive().max(0.1).default(PRETRAIN_DEFAULTS.lr),
    randomShare: z
      .number()
      .min(0)
      .max(1)
      .default(PRETRAIN_DEFAULTS.randomActionShare)
      .describe("Share of the teacher's moves replaced at random (exploration; 0 = the clean solver)"),
    valSize: z.number().int().min(1).max(1000).default(PRETRAIN_DEFAULTS.valSize),
    seed: z.number().int().min(0).default(PRETRAIN_DEFAULTS.seed),
  })
  .strict();
export type CreateBaseModelRequest = z.infer<typeof createBaseModelSchema>;
