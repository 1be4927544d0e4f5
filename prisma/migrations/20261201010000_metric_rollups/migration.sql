-- Pre-aggregated metric series: per run, key and block of 64 steps (bucket = step >> 6), the
-- first, last, lowest and highest point. Kept by every metric write; long series are downsampled
-- from these instead of from every point.
CREATE TABLE "metric_rollups" (
    "run_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "bucket" INTEGER NOT NULL,
    "n" INTEGER NOT NULL,
    "first_step" INTEGER NOT NULL,
    "first_value" DOUBLE PRECISION NOT NULL,
    "first_time" DOUBLE PRECISION NOT NULL,
    "last_step" INTEGER NOT NULL,
    "last_value" DOUBLE PRECISION NOT NULL,
    "last_time" DOUBLE PRECISION NOT NULL,
    "min_step" INTEGER NOT NULL,
    "min_value" DOUBLE PRECISION NOT NULL,
    "min_time" DOUBLE PRECISION NOT NULL,
    "max_step" INTEGER NOT NULL,
    "max_value" DOUBLE PRECISION NOT NULL,
    "max_time" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "metric_rollups_pkey" PRIMARY KEY ("run_id","key","bucket")
);

-- AddForeignKey
ALTER TABLE "metric_rollups" ADD CONSTRAINT "metric_rollups_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill from the points already stored
INSERT INTO "metric_rollups"
SELECT run_id, key, step >> 6, count(*),
       (min(ARRAY[step::float8, value, extract(epoch FROM wall_time)]))[1]::int, (min(ARRAY[step::float8, value, extract(epoch FROM wall_time)]))[2], (min(ARRAY[step::float8, value, extract(epoch FROM wall_time)]))[3],
       (max(ARRAY[step::float8, value, extract(epoch FROM wall_time)]))[1]::int, (max(ARRAY[step::float8, value, extract(epoch FROM wall_time)]))[2], (max(ARRAY[step::float8, value, extract(epoch FROM wall_time)]))[3],
       (min(ARRAY[value, step::float8, extract(epoch FROM wall_time)]))[2]::int, (min(ARRAY[value, step::float8, extract(epoch FROM wall_time)]))[1], (min(ARRAY[value, step::float8, extract(epoch FROM wall_time)]))[3],
       (max(ARRAY[value, step::float8, extract(epoch FROM wall_time)]))[2]::int, (max(ARRAY[value, step::float8, extract(epoch FROM wall_time)]))[1], (max(ARRAY[value, step::float8, extract(epoch FROM wall_time)]))[3]
FROM "metric_points"
GROUP BY run_id, key, step >> 6;
