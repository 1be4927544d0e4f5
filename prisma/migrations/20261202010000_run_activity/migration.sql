-- What the worker is doing on the run now (phase, progress, measured step and validation times)
ALTER TABLE "runs" ADD COLUMN "progress" JSONB;

-- Warnings are log lines with a code (RUN_WARNING_CODES), so they can be listed per run (found through the run_id index)
ALTER TABLE "run_logs" ADD COLUMN "code" TEXT;
