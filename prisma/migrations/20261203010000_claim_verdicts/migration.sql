-- A team's verdicts on the reasoning checker's flags, sentence by sentence (claim_verdicts).
CREATE TABLE "claim_verdicts" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "trajectory_id" UUID NOT NULL,
    "turn" INTEGER NOT NULL,
    "span_start" INTEGER NOT NULL,
    "span_end" INTEGER NOT NULL,
    "flagged" BOOLEAN NOT NULL,
    "rule" TEXT,
    "verdict" TEXT NOT NULL,
    "note" TEXT,
    "user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "claim_verdicts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "claim_verdicts_verdict_check" CHECK ("verdict" IN ('right', 'wrong'))
);

CREATE UNIQUE INDEX "claim_verdicts_team_id_trajectory_id_turn_span_start_key" ON "claim_verdicts"("team_id", "trajectory_id", "turn", "span_start");
CREATE INDEX "claim_verdicts_trajectory_id_idx" ON "claim_verdicts"("trajectory_id");

ALTER TABLE "claim_verdicts" ADD CONSTRAINT "claim_verdicts_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "claim_verdicts" ADD CONSTRAINT "claim_verdicts_trajectory_id_fkey" FOREIGN KEY ("trajectory_id") REFERENCES "trajectories"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "claim_verdicts" ADD CONSTRAINT "claim_verdicts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
