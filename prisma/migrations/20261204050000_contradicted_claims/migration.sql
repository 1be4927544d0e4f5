-- contradicted_claims: the reasoning checker's contradicted claims, one row per (turn, pattern), kept
-- by the writers of turn diagnostics. The run's diagnostics summary reads it by index: counts per
-- pattern over a step range and the latest examples of each pattern, without parsing turn JSON.
CREATE TABLE "contradicted_claims" (
    "trajectory_id" UUID NOT NULL,
    "turn" INTEGER NOT NULL,
    "pattern" TEXT NOT NULL,
    "run_id" UUID NOT NULL,
    "step" INTEGER NOT NULL,
    "split" "Split" NOT NULL,
    "claims" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "evidence" TEXT,

    CONSTRAINT "contradicted_claims_pkey" PRIMARY KEY ("trajectory_id", "turn", "pattern")
);

CREATE INDEX "contradicted_claims_run_id_pattern_step_trajectory_id_turn_idx" ON "contradicted_claims"("run_id", "pattern", "step" DESC, "trajectory_id", "turn");
CREATE INDEX "contradicted_claims_run_id_step_idx" ON "contradicted_claims"("run_id", "step");

ALTER TABLE "contradicted_claims" ADD CONSTRAINT "contradicted_claims_trajectory_id_fkey" FOREIGN KEY ("trajectory_id") REFERENCES "trajectories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- what is already stored
INSERT INTO "contradicted_claims" ("trajectory_id", "turn", "pattern", "run_id", "step", "split", "claims", "text", "evidence")
SELECT u."trajectory_id", u."index", c->>'pattern', t."run_id", t."step", t."split", count(*), coalesce(min(c->>'text'), ''), min(c->>'evidence')
FROM "turns" u
JOIN "trajectories" t ON t."id" = u."trajectory_id"
CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(u."diagnostics"->'claims') = 'array' THEN u."diagnostics"->'claims' ELSE '[]'::jsonb END) AS c
WHERE c->>'verdict' = 'contradicted' AND c->>'pattern' IS NOT NULL
GROUP BY u."trajectory_id", u."index", c->>'pattern', t."run_id", t."step", t."split";
