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

export interface ClaimVerdictView {
  id: string;
  trajectoryId: string;
  turn: number;
  span: [number, number];
  flagged: boolean;
  rule: string | null;
  verdict: 'right' | 'wrong';
  note: string | null;
  /** Who marked it and when. */
  user: { id: string; email: string };
  createdAt: string;
}

/** The checker's precision on a team's verdicts: flags marked right / all flags marked, with the count. */
export interface VerdictPrecision {
  right: number;
  wrong: number;
  precision: number | null;
}

/** GET /api/verdicts/precision: overall and per reading rule; `missed`: unflagged sentences marked wrong. */
export interface TeamVerdictSummary {
  overall: VerdictPrecision;
  rules: ({ rule: string } & VerdictPrecision)[];
  missed: number;
}
