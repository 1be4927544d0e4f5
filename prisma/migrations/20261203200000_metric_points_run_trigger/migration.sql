-- metric_points loses its foreign key to runs: the per-row check cost a third of each insert at
-- ingestion rates. The writers (upsertMetricPoints) lock the run row KEY SHARE in the same statement
-- instead, and this trigger keeps the cascade a run's deletion had.
ALTER TABLE "metric_points" DROP CONSTRAINT "metric_points_run_id_fkey";

CREATE FUNCTION "metric_points_delete_with_run"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "metric_points" WHERE "run_id" = OLD."id";
  RETURN OLD;
END
$$;

CREATE TRIGGER "runs_delete_metric_points" AFTER DELETE ON "runs"
  FOR EACH ROW EXECUTE FUNCTION "metric_points_delete_with_run"();
