import { z } from '../zod.js';

/**
 * The environment protocol, version 1: how the trainer drives an environment written in any
 * language. Over HTTP each message is a JSON body (`GET /describe`, `POST /reset`, `POST /step`,
 * optional `POST /close` and `POST /claims`); docs/environments.md has the JSON Schemas generated
 * from these.
 */
export const ENV_PROTOCOL_VERSION = 1;

/** An environment's name: the protocol's, and a team's registered environments' (POST /api/envs). */
export const envNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be lowercase letters, digits and dashes, starting with a letter (at most 40)');

const limit = (max: number) => z.number().int().min(1).max(max);

/** What an environment says about itself before any episode. */
export const envDescriptionSchema = z
  .object({
    protocol: z.literal(ENV_PROTOCOL_VERSION).describe('Protocol version the environment speaks'),
    name: envNameSchema.describe('Environment name, e.g. frozenlake-gym'),
    title: z.string().min(1).max(80).optional(),
    description: z.string().max(2000).default(''),
    instructions: z.string().max(8000).describe('Task description for the system prompt'),
    configSchema: z.record(z.string(), z.unknown()).default({ type: 'object' }).describe('JSON Schema of the config that reset accepts'),
    limits: z
      .object({ maxTurns: limit(50), maxActionsPerTurn: limit(50), maxActionsPerTraj: limit(500) })
      .strict()
      .describe('Most turns per episode, actions per reply and actions per episode'),
    legend: z.string().max(2000).nullable().default(null).describe("Meaning of the snapshot text's symbols, or null for plain text"),
    claims: z.boolean().default(false).describe('The environment answers POST /claims'),
  })
  .strict();
export type EnvDescription = z.output<typeof envDescriptionSchema>;

/** State of one turn as the replay draws it: the text (a board, a page), and any state the environment keeps. */
export const protocolSnapshotSchema = z
  .object({
    text: z.string().max(20_000).describe('Drawn as monospaced text, with the description’s legend beside it'),
    state: z.record(z.string(), z.unknown()).nullable().default(null).describe('Anything else, stored as is'),
  })
  .strict();

const episode = z.string().min(1).max(200).describe('Episode id returned by reset');

export const resetRequestSchema = z
  .object({
    seed: z.number().int().describe('The same seed always gives the same initial state'),
    stream: z.number().int().min(0).default(0).describe('Independent draw of chance events from the same start'),
    config: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type ResetRequest = z.input<typeof resetRequestSchema>;

export const resetResponseSchema = z
  .object({
    episode,
    observation: z.string().max(20_000),
    snapshot: protocolSnapshotSchema,
    actions: z
      .array(z.string().min(1).max(200))
      .max(200)
      .nullable()
      .describe('The allowed actions, matched case-insensitively; null when any text is an action (see actionFormat)'),
    actionFormat: z
      .string()
      .max(500)
      .optional()
      .describe('How to write an action when actions is null, e.g. "an equation such as 3 + 4 * 2"'),
  })
  .strict();
export type ResetResponse = z.output<typeof resetResponseSchema>;

export const stepRequestSchema = z.object({ episode, action: z.string().max(2000) }).strict();
export type StepRequest = z.input<typeof stepRequestSchema>;

export const stepResponseSchema = z
  .object({
    observation: z.string().max(20_000),
    reward: z.number().finite(),
    done: z.boolean(),
    success: z.boolean(),
    snapshot: protocolSnapshotSchema,
    actionValid: z.boolean().default(true).describe('The action was one the environment understood'),
    actionEffective: z.boolean().default(true).describe('The action changed the state'),
    info: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type StepResponse = z.output<typeof stepResponseSchema>;

export const closeRequestSchema = z.object({ episode }).strict();

/** Optional: statements about a state (from the reasoning checks) that the environment judges. */
export const claimsRequestSchema = z.object({ snapshot: protocolSnapshotSchema, claims: z.array(z.string().max(500)).max(50) }).strict();
export const claimsResponseSchema = z
  .object({ verdicts: z.array(z.enum(['true', 'false', 'unknown'])).describe('One verdict per claim, in order') })
  .strict();

/** The body of any non-2xx answer. */
export const protocolErrorSchema = z.object({ error: z.object({ message: z.string() }) });

/** Every message of the protocol by name, for the JSON Schemas in docs/environments.md. */
export const ENV_PROTOCOL_SCHEMAS = {
  EnvDescription: envDescriptionSchema,
  ResetRequest: resetRequestSchema,
  ResetResponse: resetResponseSchema,
  StepRequest: stepRequestSchema,
  StepResponse: stepResponseSchema,
  CloseRequest: closeRequestSchema,
  ClaimsRequest: claimsRequestSchema,
  ClaimsResponse: claimsResponseSchema,
  Error: protocolErrorSchema,
} as const;

/** The TypeScript side of the protocol: an environment in this process or across HTTP. */
export interface ProtocolEnvironment {
  describe(): EnvDescription | Promise<EnvDescription>;
  reset(req: ResetRequest): ResetResponse | Promise<ResetResponse>;
  step(req: StepRequest): StepResponse | Promise<StepResponse>;
  close?(episode: string): void | Promise<void>;
}

/** A message that failed its schema: the first issue's path and message, e.g. `step answer: reward: expected number`. */
export function protocolIssue(what: string, error: z.ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path.length ? issue.path.join('.') : '(body)';
  return `${what}: ${path}: ${issue.message}`;
}
