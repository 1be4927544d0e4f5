-- An Idempotency-Key belongs to its caller (an API token, or the user of a session) and keeps a hash
-- of the request body it came with. A key stored before was the team's: it goes to the run's
-- creator, with no hash (replayed as before until it expires).
ALTER TABLE "run_idempotency_keys" ADD COLUMN "caller_id" UUID,
ADD COLUMN "body_hash" TEXT;

UPDATE "run_idempotency_keys" k SET "caller_id" = r."owner_id" FROM "runs" r WHERE r."id" = k."run_id";
DELETE FROM "run_idempotency_keys" WHERE "caller_id" IS NULL;

ALTER TABLE "run_idempotency_keys" ALTER COLUMN "caller_id" SET NOT NULL,
DROP CONSTRAINT "run_idempotency_keys_pkey",
ADD CONSTRAINT "run_idempotency_keys_pkey" PRIMARY KEY ("team_id", "caller_id", "key");
