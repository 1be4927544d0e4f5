import { z } from './zod.js';
import { getEnvDefinition, listEnvs } from '@starpo/envs';
import { starpoTinyRefusal } from './bases.js';

/** Rollout limits of an environment served elsewhere when the run sets none: the schema's maxima, cut to its own by the trainer. */
export const REMOTE_ROLLOUT_LIMITS = { maxTurns: 50, maxActionsPerTurn: 50, maxActionsPerTraj: 500 } as const;

/** Where an environment served through the protocol is: a URL, or a command and the folder it runs in. */
export const remoteEndpointShape = {
  url: z
    .url({ protocol: /^https?$/, hostname: z.regexes.hostname })
    .max(2000)
    .optional()
    .describe('Address of a server speaking the protocol, e.g. http://127.0.0.1:8765'),
  command: z
    .array(z.string().min(1).max(1000))
    .min(1)
    .max(64)
    .optional()
    .describe('Program and arguments that start a server; it must listen on the port in STARPO_ENV_PORT'),
  cwd: z.string().min(1).max(1000).optional().describe('Absolute folder the command runs in: under ENV_ROOTS on a worker'),
};

/** Exactly one of url and command, a command with an absolute cwd. */
export function checkRemoteEndpoint(r: { url?: string; command?: string[]; cwd?: string }, ctx: z.RefinementCtx): void {
  if ((r.url === undefined) === (r.command === undefined))
    ctx.addIssue({ code: 'custom', path: ['url'], message: 'give either url or command (with cwd)' });
  if (r.command && !(r.cwd && /^(\/|[A-Za-z]:[\\/])/.test(r.cwd)))
    ctx.addIssue({ code: 'custom', path: ['cwd'], message: 'a command needs an absolute cwd' });
}

/**
 * An environment served through the protocol (docs/environments.md): at a URL, or started by a command
 * in a folder under the deployment's ENV_ROOTS. Only workers ever reach it.
 */
export const remoteEnvSchema = z
  .object({
    ...remoteEndpointShape,
    timeoutMs: z.number().int().min(100).max(600_000).default(30_000).describe('Each call to the environment gives up after this long'),
    retries: z.number().int().min(0).max(10).default(2).describe('Further tries of a call that is safe to repeat'),
    onError: z
      .enum(['fail-run', 'fail-episode'])
      .default('fail-run')
      .describe("fail-run: a failed call ends the run with the environment's error; fail-episode: the episode counts as failed"),
    concurrency: z.number().int().min(1).max(256).default(16).describe('Calls in flight at once'),
  })
  .strict()
  .superRefine(checkRemoteEndpoint);
export type RemoteEnvConfig = z.output<typeof remoteEnvSchema>;

/**
 * Environment: name plus that environment's own config (validated by its registered schema), or the
 * name and config of an environment served through the protocol (`remote`), which validates its own.
 */
export const envSelectionSchema = z
  .object({
    name: z.string().min(1).max(40).describe('Registered environment name, e.g. sokoban'),
    config: z.record(z.string(), z.unknown()).default({}),
    remote: remoteEnvSchema.optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.remote) return;
    const def = listEnvs().find((d) => d.name === value.name);
    if (!def) {
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: `unknown environment "${value.name}"; known: ${listEnvs()
          .map((d) => d.name)
          .join(', ')}`,
      });
      return;
    }
    const parsed = def.configSchema.safeParse(value.config);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['config', ...issue.path] } as never);
    }
  })
  .transform((value) =>
    value.remote
      ? { name: value.name, config: value.config, remote: value.remote }
      : { name: value.name, config: getEnvDefinition(value.name).configSchema.parse(value.config) as Record<string, unknown> },
  );

/** Seeds are stored as Postgres integers (seedBase + i), so a base keeps clear of the int range's edges. */
const seedBase = z.number().int().min(-1_000_000_000).max(1_000_000_000);

const validationSchema = z
  .object({
    size: z.number().int().min(1).max(4096).default(256).describe('Validation prompts (one rollout each)'),
    seedBase: seedBase.default(123).describe('Validation uses seeds seedBase + i, the same every time'),
    temperature: z.number().min(0).max(2).default(0.5),
    every: z.number().int().min(0).default(10).describe('Validate every N steps; 0 = never during training'),
    beforeTraining: z.boolean().default(true),
  })
  .strict();

const rolloutSchema = z
  .object({
    envGroups: z.number().int().min(1).max(1024).default(8).describe('Initial states per step (P)'),
    groupSize: z.number().int().min(1).max(256).default(16).describe('Rollouts per initial state (N)'),
    maxTurns: z.number().int().min(1).max(50).optional().describe("Defaults to the environment's"),
    maxActionsPerTurn: z.number().int().min(1).max(50).optional().describe("Defaults to the environment's"),
    maxActionsPerTraj: z.number().int().min(1).max(500).optional().describe("Defaults to the environment's"),
    maxNewTokens: z.number().int().min(1).max(8192).default(400).describe('Max new tokens per turn'),
    temperature: z.number().min(0).max(2).default(1),
    topP: z.number().gt(0).max(1).default(1),
    contextWindow: z.enum(['full', 'last_k']).default('full'),
    lastKTurns: z.number().int().min(1).max(50).default(2).describe('Turns kept when contextWindow is last_k'),
    maxContextTokens: z
      .number()
      .int()
      .min(64)
      .max(131072)
      .default(3600)
      .describe('Drop the oldest turns of a prompt beyond this; such a turn is trained on the prompt it was sampled from'),
    trainSeedBase: seedBase.default(10000),
    validation: validationSchema.prefault({}),
  })
  .strict();

const formatSchema = z
  .object({
    enableThink: z.boolean().default(true),
    formatPenalty: z.number().max(0).default(-0.1).describe('Added once per turn whose actions were not all valid'),
    actionSeparator: z.string().min(1).max(8).default('||'),
  })
  .strict();

export const ADV_ESTIMATORS = ['gae', 'grpo', 'reinforce', 'bilevel_gae', 'gigpo', 'turn_return'] as const;
export const LOSS_AGG_MODES = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'] as const;

const algorithmSchema = z
  .object({
    advEstimator: z.enum(ADV_ESTIMATORS).default('gae'),
    gamma: z.number().min(0).max(1).default(1),
    lambda: z.number().min(0).max(1).default(1),
    highLevelGamma: z.number().min(0).max(1).default(0.95).describe('Turn-level γ of bi-level GAE and turn_return'),
    grpoNormByStd: z.boolean().default(true).describe('false = Dr.GRPO (no division by the group std)'),
    rewardNormalization: z
      .object({
        grouping: z.enum(['state', 'batch', 'inductive']).default('state'),
        method: z.enum(['identity', 'mean', 'mean_std', 'asym_clip']).default('identity'),
      })
      .strict()
      .prefault({}),
    whitenAdvantages: z.boolean().default(true),
    advantageClip: z.number().positive().nullable().default(null),
    negativeAdvantageScale: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe('Multiplies negative advantages after estimation: 1 = as estimated, 0 = learn from better-than-average turns only'),
    actionNegativeScale: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .default(null)
      .describe(
        "turnCredit=action: negativeAdvantageScale for the action words alone (null = the same). 1 with negativeAdvantageScale 0 tells a bad move apart without pushing down the reply's wording",
      ),
    turnCredit: z
      .enum(['sum', 'weakest', 'action'])
      .default('sum')
      .describe(
        "turn_return's reward of a turn: the sum of its actions' rewards; weakest = its action count × its worst action's reward; action = the sum, except that each action word of the plan and the answer gets that action's own reward",
      ),
    groundedCreditOnly: z
      .boolean()
      .default(false)
      .describe('turn_return: a turn whose think text contradicts the state (the reasoning checks) gets no positive credit'),
    consistentCreditOnly: z
      .boolean()
      .default(false)
      .describe(
        "turn_return: a turn whose answer departs from its think text's decision (the reasoning checks' think/answer mismatch) gets no positive credit on any token, action words included",
      ),
    reasoningBonus: z
      .object({
        grounded: z
          .number()
          .min(0)
          .max(10)
          .default(0)
          .describe(
            "Added to a turn's reward when its think text makes a claim the reasoning checks can verify and none is contradicted. 0 = off",
          ),
        consistent: z
          .number()
          .min(0)
          .max(10)
          .default(0)
          .describe(
            "Added to a turn's reward when its answer follows the move its think text decided on (no think–answer mismatch). 0 = off",
          ),
      })
      .strict()
      .prefault({})
      .describe(
        "The product's reasoning checks as a reward: bonuses reach every estimator through the turn rewards and the trajectory score",
      ),
    solverDistill: z
      .object({
        coef: z
          .number()
          .min(0)
          .max(100)
          .default(0)
          .describe(
            "On-policy solver distillation: weight of a cross-entropy term, beside the RL loss, on the scripted teacher's reply at states the policy itself visited (DAgger's labels). 0 = off",
          ),
        turns: z.number().int().min(1).max(1024).default(32).describe('Visited states labelled per step (sampled from the rollout batch)'),
      })
      .strict()
      .prefault({}),
    gigpo: z
      .object({
        stepWeight: z.number().min(0).default(1),
        stepGamma: z.number().min(0).max(1).default(0.95),
        mode: z.enum(['mean_norm', 'mean_std_norm']).default('mean_norm'),
      })
      .strict()
      .prefault({}),
  })
  .strict();

const ppoSchema = z
  .object({
    clipRatioLow: z.number().min(0).max(1).default(0.2),
    clipRatioHigh: z.number().min(0).max(10).default(0.28),
    dualClip: z.number().gt(1).nullable().default(3).describe('Dual-clip constant c for negative advantages (verl and RAGEN: 3), or null'),
    kl: z
      .object({
        type: z.enum(['k1', 'k2', 'k3']).default('k1'),
        coef: z.number().min(0).default(0),
        in: z.enum(['loss', 'reward']).default('loss'),
      })
      .strict()
      .prefault({}),
    entropyCoef: z.number().min(0).default(0.001),
    lossAggMode: z.enum(LOSS_AGG_MODES).default('token-mean'),
    epochs: z.number().int().min(1).max(20).default(1),
    miniBatchSize: z.number().int().min(1).default(32).describe('Trajectories per optimizer step'),
    microBatchSize: z.number().int().min(1).default(4).describe('Trajectories per forward/backward (gradient accumulation)'),
    actorLr: z.number().positive().max(1).default(1e-6),
    criticLr: z.number().positive().max(1).default(1e-5),
    lrSchedule: z
      .object({
        type: z.enum(['constant', 'linear', 'cosine']).default('constant'),
        warmupSteps: z.number().int().min(0).default(0),
        minRatio: z.number().min(0).max(1).default(0).describe('Rate at the end of the decay, as a share of actorLr / criticLr'),
        horizonSteps: z
          .number()
          .int()
          .min(1)
          .nullable()
          .default(null)
          .describe('Steps over which the rate decays (null = training.steps); a time-limited run sets about the steps it will reach'),
      })
      .strict()
      .prefault({})
      .describe('Both learning rates follow it, step by step'),
    weightDecay: z.number().min(0).default(0.01),
    betas: z.tuple([z.number().min(0).lt(1), z.number().min(0).lt(1)]).default([0.9, 0.999]),
    gradClip: z.number().positive().default(1),
    valueClip: z.number().positive().default(0.5),
  })
  .strict();

const filterSchema = z
  .object({
    metric: z.enum(['std', 'std_rev', 'mean']).default('std'),
    ratio: z.number().gt(0).max(1).default(0.25).describe('Share of initial-state groups kept; 1 = no filtering'),
    includeZero: z.boolean().default(true).describe('false drops zero-variance groups before selection'),
    adjustBatch: z.enum(['copy', 'delete']).default('copy'),
  })
  .strict();

const earlyStoppingSchema = z
  .object({
    enabled: z.boolean().default(true),
    emptyBatchSteps: z.number().int().min(1).default(5),
    rewardStdBaselineSteps: z.number().int().min(1).default(10),
    rewardStdWindow: z.number().int().min(1).default(10),
    rewardStdFraction: z.number().min(0).max(1).default(0.1),
    lowValSuccess: z.number().min(0).max(1).default(0.01),
    lowValPatience: z.number().int().min(1).default(5),
  })
  .strict();

export const BACKENDS = ['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'] as const;

const modelSchema = z
  .object({
    base: z
      .string()
      .min(1)
      .superRefine((base, ctx) => {
        const refused = starpoTinyRefusal(base);
        if (refused) ctx.addIssue({ code: 'custom', message: refused });
      })
      .default('starpo-tiny/tiny')
      .describe(
        'Base model: a shipped base (starpo-base/…), a base model of the team, an absolute folder under the MODEL_ROOTS the deployment sets, or starpo-tiny/<size> from scratch',
      ),
    backend: z.enum(BACKENDS).default('auto'),
    device: z.enum(['any', 'gpu']).default('any').describe('gpu: only a GPU worker may claim the run'),
  })
  .strict();

const trainingSchema = z
  .object({
    steps: z.number().int().min(1).max(100_000).default(200),
    rolloutReuse: z.number().int().min(1).max(100).default(1).describe('Online-K: updates per rollout batch'),
    checkpointEvery: z.number().int().min(0).default(10).describe('0 = only at the end'),
    seed: z.number().int().default(0),
    trainTrajectoryShare: z.number().min(0).max(1).default(1).describe('Share of training trajectories stored'),
  })
  .strict();

const runConfigInput = z
  .object({
    env: envSelectionSchema.prefault({ name: 'sokoban' }),
    rollout: rolloutSchema.prefault({}),
    format: formatSchema.prefault({}),
    algorithm: algorithmSchema.prefault({}),
    ppo: ppoSchema.prefault({}),
    filter: filterSchema.prefault({}),
    earlyStopping: earlyStoppingSchema.prefault({}),
    model: modelSchema.prefault({}),
    training: trainingSchema.prefault({}),
  })
  .strict();

/** The full, validated configuration of a training run. Defaults follow the paper (RAGEN v0423). */
export const runConfigSchema = runConfigInput
  .transform((c) => {
    const limits = c.env.remote ? REMOTE_ROLLOUT_LIMITS : getEnvDefinition(c.env.name).rolloutDefaults;
    return {
      ...c,
      rollout: {
        ...c.rollout,
        maxTurns: c.rollout.maxTurns ?? limits.maxTurns,
        maxActionsPerTurn: c.rollout.maxActionsPerTurn ?? limits.maxActionsPerTurn,
        maxActionsPerTraj: c.rollout.maxActionsPerTraj ?? limits.maxActionsPerTraj,
      },
    };
  })
  .superRefine((c, ctx) => {
    const batch = c.rollout.envGroups * c.rollout.groupSize;
    if (c.ppo.miniBatchSize > batch) {
      ctx.addIssue({ code: 'custom', path: ['ppo', 'miniBatchSize'], message: `must be at most envGroups × groupSize (${batch})` });
    }
    if (c.ppo.microBatchSize > c.ppo.miniBatchSize || c.ppo.miniBatchSize % c.ppo.microBatchSize !== 0) {
      ctx.addIssue({ code: 'custom', path: ['ppo', 'microBatchSize'], message: `must divide miniBatchSize (${c.ppo.miniBatchSize})` });
    }
    if (c.rollout.maxActionsPerTurn > c.rollout.maxActionsPerTraj) {
      ctx.addIssue({
        code: 'custom',
        path: ['rollout', 'maxActionsPerTurn'],
        message: `must be at most maxActionsPerTraj (${c.rollout.maxActionsPerTraj})`,
      });
    }
    // A rollout resets envGroups seeds at once (validation: chunks of up to 64), one generation per seed.
    const resets = Math.max(c.rollout.envGroups, Math.min(c.rollout.validation.size, 64));
    const generation = c.env.remote ? null : getEnvDefinition(c.env.name).rolloutGenerationIssue?.(c.env.config as never, resets);
    if (generation) ctx.addIssue({ code: 'custom', path: ['env', 'config', ...generation.path], message: generation.message });
    if (c.env.remote && c.algorithm.turnCredit === 'action')
      ctx.addIssue({
        code: 'custom',
        path: ['algorithm', 'turnCredit'],
        message: 'action needs the action names of a built-in environment; use sum or weakest with env.remote',
      });
    if (['grpo', 'gigpo'].includes(c.algorithm.advEstimator) && c.rollout.groupSize < 2) {
      ctx.addIssue({
        code: 'custom',
        path: ['rollout', 'groupSize'],
        message: `${c.algorithm.advEstimator} needs groups of at least 2 rollouts`,
      });
    }
  });

export type RunConfig = z.output<typeof runConfigSchema>;
export type RunConfigInput = z.input<typeof runConfigSchema>;
