-- Workers take queued runs by when they joined the queue (created, or resumed from the API), which a
-- requeue after a shutdown or a lost heartbeat keeps. Runs queued before count from their creation.

-- DropIndex
DROP INDEX "runs_status_created_at_idx";

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "runs" SET "queued_at" = "created_at";

-- CreateIndex
CREATE INDEX "runs_status_queued_at_idx" ON "runs"("status", "queued_at");
