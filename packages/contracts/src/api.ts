import { z } from 'zod';

/** POST /api/runs body: a preset plus overrides (any RunConfig subset), with metadata. */
export const createRunSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    preset: z.string().optional(),
    config: z.record(z.string(), z.unknown()).default({}),
    tags: z.array(z.string().trim().min(1).max(50)).max(20).default([]),
    notes: z.string().max(10_000).default(''),
  })
  .strict();
export type CreateRunRequest = z.infer<typeof createRunSchema>;

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'stopped_early'] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

export interface RunSummary {
  id: string;
  name: string;
  status: RunStatusName;
  stopReason: string | null;
  environment: string;
  algorithm: string;
  preset: string | null;
  tags: string[];
  currentStep: number;
  totalSteps: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Latest value of key metrics (from the summary table). */
  latest: Record<string, number>;
  /** Best validation success so far. */
  bestValSuccess: number | null;
}

export interface MetricSeries {
  key: string;
  points: { step: number; value: number; time: number }[];
}
