-- AlterTable
ALTER TABLE "runs" ADD COLUMN "cancel_requested_at" TIMESTAMPTZ(3);
