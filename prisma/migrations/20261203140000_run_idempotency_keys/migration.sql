-- CreateTable
CREATE TABLE "run_idempotency_keys" (
    "team_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "run_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_idempotency_keys_pkey" PRIMARY KEY ("team_id","key")
);

-- CreateIndex
CREATE INDEX "run_idempotency_keys_run_id_idx" ON "run_idempotency_keys"("run_id");

-- AddForeignKey
ALTER TABLE "run_idempotency_keys" ADD CONSTRAINT "run_idempotency_keys_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_idempotency_keys" ADD CONSTRAINT "run_idempotency_keys_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
