-- AlterTable: the state after a trajectory's last turn, so its diagnostics can be recomputed later
ALTER TABLE "trajectories" ADD COLUMN "final_snapshot" JSONB;
