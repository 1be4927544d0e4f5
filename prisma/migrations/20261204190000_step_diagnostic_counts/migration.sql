-- step_diagnostic_counts: per run, step and split, the trajectory count, each flag's count and each
-- contradicted-claim pattern's claim count, kept by the writers of trajectories and diagnostics
-- (queries/step-counts.ts). A run's diagnostics summary adds these up instead of every trajectory
-- and claim row of the run.
CREATE TABLE "step_diagnostic_counts" (
    "run_id" UUID NOT NULL,
    "step" INTEGER NOT NULL,
    "split" "Split" NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "n" INTEGER NOT NULL,

    CONSTRAINT "step_diagnostic_counts_pkey" PRIMARY KEY ("run_id", "step", "split", "kind", "name")
);

ALTER TABLE "step_diagnostic_counts" ADD CONSTRAINT "step_diagnostic_counts_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- what is already stored
INSERT INTO "step_diagnostic_counts" ("run_id", "step", "split", "kind", "name", "n")
SELECT "run_id", "step", "split", 'trajectories', '', count(*)::int FROM "trajectories" GROUP BY "run_id", "step", "split"
UNION ALL
SELECT t."run_id", t."step", t."split", 'flag', f, count(*)::int FROM "trajectories" t CROSS JOIN LATERAL unnest(t."flags") AS f
GROUP BY t."run_id", t."step", t."split", f
UNION ALL
SELECT "run_id", "step", "split", 'claims', "pattern", sum("claims")::int FROM "contradicted_claims" GROUP BY "run_id", "step", "split", "pattern";
