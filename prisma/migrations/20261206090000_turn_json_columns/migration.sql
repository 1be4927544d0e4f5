-- A turn's state snapshot and diagnostics are written once and read whole (the replay, re-diagnosis);
-- no query looks inside them (contradicted_claims holds what the diagnostics summary reads). As `json`
-- they go in after one validity scan instead of being rebuilt as a binary `jsonb` tree, which was
-- over a quarter of Postgres's cost of storing a turn. The change rewrites the table once.
ALTER TABLE "turns"
    ALTER COLUMN "state_snapshot" TYPE JSON USING "state_snapshot"::json,
    ALTER COLUMN "diagnostics" TYPE JSON USING "diagnostics"::json;
