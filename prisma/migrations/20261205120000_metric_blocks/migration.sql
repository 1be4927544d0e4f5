-- Metric points stored in blocks: one row per run, key and 64 steps (bucket = step >> 6) holding the
-- block's steps, values, wall times (epoch seconds) and leases as arrays, sorted by step, with the
-- first, last, lowest and highest point beside them (what metric_rollups held). A point used to be
-- a row with its own B-tree entry, the main cost of ingestion; a block is one row per write.
-- metric_points stays, as a read-only view over the blocks.
CREATE TABLE "metric_blocks" (
    "run_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "bucket" INTEGER NOT NULL,
    "steps" INTEGER[] NOT NULL,
    "vals" DOUBLE PRECISION[] NOT NULL,
    "times" DOUBLE PRECISION[] NOT NULL,
    -- lease epoch of the worker that wrote each point (null for ingested points)
    "leases" INTEGER[] NOT NULL,
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

    CONSTRAINT "metric_blocks_pkey" PRIMARY KEY ("run_id", "key", "bucket")
);

-- No foreign key (its per-row check was a seventh of a write): writers lock the run row in their
-- statement, and a run's deletion takes its blocks along by the trigger below.

-- A stored block merged with a new one of the same run, key and bucket (the new one's point wins a
-- step both hold). Points appended after the block's last step concatenate and compare extremes;
-- anything else is re-sorted and re-aggregated (at most 64 points).
CREATE FUNCTION "metric_block_merge"("old" "metric_blocks", "new" "metric_blocks") RETURNS "metric_blocks"
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  r "metric_blocks" := "new";
  f float8[]; l float8[]; lo float8[]; hi float8[];
BEGIN
  IF "old".last_step < "new".first_step THEN
    r.steps := "old".steps || "new".steps;
    r.vals := "old".vals || "new".vals;
    r.times := "old".times || "new".times;
    r.leases := "old".leases || "new".leases;
    r.n := "old".n + "new".n;
    r.first_step := "old".first_step; r.first_value := "old".first_value; r.first_time := "old".first_time;
    -- ties: the lowest value's earliest step, the highest value's latest step
    IF "old".min_value <= "new".min_value THEN
      r.min_step := "old".min_step; r.min_value := "old".min_value; r.min_time := "old".min_time;
    END IF;
    IF "old".max_value > "new".max_value THEN
      r.max_step := "old".max_step; r.max_value := "old".max_value; r.max_time := "old".max_time;
    END IF;
    RETURN r;
  END IF;
  SELECT array_agg(s ORDER BY s), array_agg(v ORDER BY s), array_agg(t ORDER BY s), array_agg(ls ORDER BY s), count(*)::int,
         min(ARRAY[s::float8, v, t]), max(ARRAY[s::float8, v, t]), min(ARRAY[v, s::float8, t]), max(ARRAY[v, s::float8, t])
    INTO r.steps, r.vals, r.times, r.leases, r.n, f, l, lo, hi
    FROM (SELECT DISTINCT ON (s) s, v, t, ls FROM (
            SELECT u.*, 0 AS o FROM unnest("new".steps, "new".vals, "new".times, "new".leases) AS u(s, v, t, ls)
            UNION ALL
            SELECT u.*, 1 AS o FROM unnest("old".steps, "old".vals, "old".times, "old".leases) AS u(s, v, t, ls)) x
          ORDER BY s, o) m;
  r.first_step := f[1]::int; r.first_value := f[2]; r.first_time := f[3];
  r.last_step := l[1]::int; r.last_value := l[2]; r.last_time := l[3];
  r.min_step := lo[2]::int; r.min_value := lo[1]; r.min_time := lo[3];
  r.max_step := hi[2]::int; r.max_value := hi[1]; r.max_time := hi[3];
  RETURN r;
END
$$;

-- what is already stored
INSERT INTO "metric_blocks"
SELECT run_id, key, bucket, steps, vals, times, leases, n,
       f[1]::int, f[2], f[3], l[1]::int, l[2], l[3], lo[2]::int, lo[1], lo[3], hi[2]::int, hi[1], hi[3]
FROM (
  SELECT run_id, key, step >> 6 AS bucket,
         array_agg(step ORDER BY step) AS steps, array_agg(value ORDER BY step) AS vals,
         array_agg(extract(epoch FROM wall_time)::float8 ORDER BY step) AS times, array_agg(lease ORDER BY step) AS leases,
         count(*)::int AS n,
         min(ARRAY[step::float8, value, extract(epoch FROM wall_time)::float8]) AS f, max(ARRAY[step::float8, value, extract(epoch FROM wall_time)::float8]) AS l,
         min(ARRAY[value, step::float8, extract(epoch FROM wall_time)::float8]) AS lo, max(ARRAY[value, step::float8, extract(epoch FROM wall_time)::float8]) AS hi
  FROM "metric_points" p WHERE EXISTS (SELECT 1 FROM "runs" r WHERE r.id = p.run_id)
  GROUP BY run_id, key, step >> 6
) b;

DROP TRIGGER "runs_delete_metric_points" ON "runs";
DROP FUNCTION "metric_points_delete_with_run"();
DROP TABLE "metric_points";

CREATE FUNCTION "metric_blocks_delete_with_run"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "metric_blocks" WHERE "run_id" = OLD."id";
  RETURN OLD;
END
$$;

CREATE TRIGGER "runs_delete_metric_blocks" AFTER DELETE ON "runs"
  FOR EACH ROW EXECUTE FUNCTION "metric_blocks_delete_with_run"();
DROP TABLE "metric_rollups";

-- every point, one row each, as the table was (the bucket too, so readers of a step range can name its blocks)
CREATE VIEW "metric_points" AS
  SELECT b.run_id, b.key, b.bucket, u.step, u.value, to_timestamp(u.t)::timestamptz(3) AS wall_time, u.lease
  FROM "metric_blocks" b CROSS JOIN LATERAL unnest(b.steps, b.vals, b.times, b.leases) AS u(step, value, t, lease);
