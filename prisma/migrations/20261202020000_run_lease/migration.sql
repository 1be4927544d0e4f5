-- AlterTable
ALTER TABLE "runs" ADD COLUMN "lease_epoch" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "metric_points" ADD COLUMN "lease" INTEGER;
