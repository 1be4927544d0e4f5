import { z } from './zod.js';

/** POST /api/trajectories/:id/turns/:turn/verdicts: a member's verdict on one sentence of the think text. */
export const claimVerdictSchema = z
  .object({
    /** The sentence's character span in the think text, as the turn's diagnostics give it. */
    span: z.tuple([z.number().int().min(0), z.number().int().min(0)]),
    /** On a flagged sentence: the flag is right or wrong; on an unflagged one only 'wrong' (a missed hallucination). */
    verdict: z.enum(['right', 'wrong']),
    note: z.string().max(2000).optional(),
  })
  .strict();
export type ClaimVerdictInput = z.infer<typeof claimVerdictSchema>;

export const claimVerdictViewSchema = z.object({
  id: z.string(),
  trajectoryId: z.string(),
  turn: z.number(),
  span: z.tuple([z.number(), z.number()]),
  flagged: z.boolean(),
  rule: z.string().nullable(),
  verdict: z.enum(['right', 'wrong']),
  note: z.string().nullable(),
  /** Who marked it and when. */
  user: z.object({ id: z.string(), email: z.string() }),
  createdAt: z.string(),
});
export type ClaimVerdictView = z.infer<typeof claimVerdictViewSchema>;

/** The checker's precision on a team's verdicts: flags marked right / all flags marked, with the count. */
export const verdictPrecisionSchema = z.object({ right: z.number(), wrong: z.number(), precision: z.number().nullable() });
export type VerdictPrecision = z.infer<typeof verdictPrecisionSchema>;

/** GET /api/verdicts/precision: overall and per reading rule; `missed`: unflagged sentences marked wrong. */
export const teamVerdictSummarySchema = z.object({
  overall: verdictPrecisionSchema,
  rules: z.array(verdictPrecisionSchema.extend({ rule: z.string() })),
  missed: z.number(),
});
export type TeamVerdictSummary = z.infer<typeof teamVerdictSummarySchema>;
