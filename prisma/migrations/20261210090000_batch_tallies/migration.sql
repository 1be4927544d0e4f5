-- A step batch that an external run posts a trajectory at a time is judged incrementally
-- (queries/diagnosis.ts): template collapse needs each well-formed turn's think key and state,
-- and the batch's metrics are rates of integer sums, so both are kept instead of re-read.

-- turn_keys: per judged turn, md5 of its think key and of its state, under its batch, so a request
-- looks up only the stored turns that share one of its think keys or states.
CREATE TABLE "turn_keys" (
    "trajectory_id" UUID NOT NULL,
    "turn" INTEGER NOT NULL,
    "run_id" UUID NOT NULL,
    "step" INTEGER NOT NULL,
    "split" "Split" NOT NULL,
    "think_key" UUID NOT NULL,
    "state_key" UUID NOT NULL,

    CONSTRAINT "turn_keys_pkey" PRIMARY KEY ("trajectory_id", "turn")
);
CREATE INDEX "turn_keys_think_idx" ON "turn_keys"("run_id", "step", "split", "think_key");
CREATE INDEX "turn_keys_state_idx" ON "turn_keys"("run_id", "step", "split", "state_key");
ALTER TABLE "turn_keys" ADD CONSTRAINT "turn_keys_trajectory_id_fkey" FOREIGN KEY ("trajectory_id") REFERENCES "trajectories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- batch_tallies: per (run, step, split), the checker's tally of the batch and its distinct think
-- keys and states. A row vouches that turn_keys and the tally cover every trajectory of the batch.
CREATE TABLE "batch_tallies" (
    "run_id" UUID NOT NULL,
    "step" INTEGER NOT NULL,
    "split" "Split" NOT NULL,
    "tally" JSONB NOT NULL,
    "distinct_thinks" INTEGER NOT NULL,
    "distinct_states" INTEGER NOT NULL,

    CONSTRAINT "batch_tallies_pkey" PRIMARY KEY ("run_id", "step", "split")
);
ALTER TABLE "batch_tallies" ADD CONSTRAINT "batch_tallies_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Any write to a batch's trajectories drops its tally (a writer that keeps it writes it again after
-- its last write), so a batch written some other way (a worker's rows, pruning, a delete) is judged
-- whole the next time a request joins it.
CREATE FUNCTION "batch_tallies_forget"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "batch_tallies" b USING (SELECT DISTINCT "run_id", "step", "split" FROM "changed") c
    WHERE b."run_id" = c."run_id" AND b."step" = c."step" AND b."split" = c."split";
  RETURN NULL;
END $$;
CREATE TRIGGER "trajectories_insert_forget_tally" AFTER INSERT ON "trajectories"
    REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "batch_tallies_forget"();
CREATE TRIGGER "trajectories_update_forget_tally" AFTER UPDATE ON "trajectories"
    REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "batch_tallies_forget"();
CREATE TRIGGER "trajectories_delete_forget_tally" AFTER DELETE ON "trajectories"
    REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "batch_tallies_forget"();
