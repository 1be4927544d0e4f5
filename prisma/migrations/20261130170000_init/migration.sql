-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('owner', 'member', 'viewer');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'stopped_early');

-- CreateEnum
CREATE TYPE "RunKind" AS ENUM ('train', 'pretrain', 'external');

-- CreateEnum
CREATE TYPE "Split" AS ENUM ('train', 'val');

-- CreateEnum
CREATE TYPE "WorkerStatus" AS ENUM ('idle', 'busy', 'offline');

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "teams" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "teams_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "user_id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "role" "Role" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("user_id","team_id")
);

-- CreateTable
CREATE TABLE "invites" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "email" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invites_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "base_models" (
    "id" UUID NOT NULL,
    "team_id" UUID,
    "name" TEXT NOT NULL,
    "architecture" JSONB NOT NULL,
    "tokenizer" JSONB NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'pretrain',
    "metrics" JSONB NOT NULL DEFAULT '{}',
    "run_id" UUID,
    "checkpoint_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "base_models_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workers" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "backend" TEXT NOT NULL,
    "device" TEXT NOT NULL,
    "has_gpu" BOOLEAN NOT NULL DEFAULT false,
    "memory_bytes" BIGINT NOT NULL DEFAULT 0,
    "status" "WorkerStatus" NOT NULL DEFAULT 'idle',
    "current_run_id" UUID,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_heartbeat" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "owner_id" UUID,
    "kind" "RunKind" NOT NULL DEFAULT 'train',
    "name" TEXT NOT NULL,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "notes" TEXT NOT NULL DEFAULT '',
    "preset" TEXT,
    "config" JSONB NOT NULL,
    "environment" TEXT NOT NULL,
    "algorithm" TEXT NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'queued',
    "stop_reason" TEXT,
    "error" TEXT,
    "worker_id" UUID,
    "heartbeat_at" TIMESTAMPTZ(3),
    "current_step" INTEGER NOT NULL DEFAULT 0,
    "total_steps" INTEGER NOT NULL DEFAULT 0,
    "resume_count" INTEGER NOT NULL DEFAULT 0,
    "needs_gpu" BOOLEAN NOT NULL DEFAULT false,
    "cloned_from_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "metric_points" (
    "run_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "wall_time" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "metric_points_pkey" PRIMARY KEY ("run_id","key","step")
);

-- CreateTable
CREATE TABLE "metric_summaries" (
    "run_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "max_value" DOUBLE PRECISION NOT NULL,
    "min_value" DOUBLE PRECISION NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "metric_summaries_pkey" PRIMARY KEY ("run_id","key")
);

-- CreateTable
CREATE TABLE "trajectories" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "step" INTEGER NOT NULL,
    "split" "Split" NOT NULL,
    "group_index" INTEGER NOT NULL,
    "index_in_group" INTEGER NOT NULL,
    "seed" INTEGER NOT NULL,
    "environment" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "total_reward" DOUBLE PRECISION NOT NULL,
    "num_turns" INTEGER NOT NULL,
    "num_actions" INTEGER NOT NULL DEFAULT 0,
    "kept_by_filter" BOOLEAN,
    "hallucinated" BOOLEAN NOT NULL DEFAULT false,
    "flags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trajectories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "turns" (
    "trajectory_id" UUID NOT NULL,
    "index" INTEGER NOT NULL,
    "observation" TEXT NOT NULL,
    "state_snapshot" JSONB NOT NULL,
    "raw_reply" TEXT NOT NULL,
    "think" TEXT NOT NULL,
    "answer" TEXT NOT NULL,
    "parsed_actions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "valid_actions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "format_ok" BOOLEAN NOT NULL,
    "actions_valid" BOOLEAN NOT NULL,
    "effective_count" INTEGER NOT NULL DEFAULT 0,
    "reward" DOUBLE PRECISION NOT NULL,
    "done" BOOLEAN NOT NULL,
    "prompt_tokens" INTEGER NOT NULL DEFAULT 0,
    "response_tokens" INTEGER NOT NULL DEFAULT 0,
    "mean_log_prob" DOUBLE PRECISION,
    "mean_entropy" DOUBLE PRECISION,
    "advantage" DOUBLE PRECISION,
    "diagnostics" JSONB,

    CONSTRAINT "turns_pkey" PRIMARY KEY ("trajectory_id","index")
);

-- CreateTable
CREATE TABLE "checkpoints" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "step" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "size_bytes" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "meta" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checkpoint_chunks" (
    "checkpoint_id" UUID NOT NULL,
    "index" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "checkpoint_chunks_pkey" PRIMARY KEY ("checkpoint_id","index")
);

-- CreateTable
CREATE TABLE "run_logs" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "level" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "memberships_team_id_idx" ON "memberships"("team_id");

-- CreateIndex
CREATE UNIQUE INDEX "invites_token_hash_key" ON "invites"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "sessions_token_hash_key" ON "sessions"("token_hash");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "base_models_team_id_name_key" ON "base_models"("team_id", "name");

-- CreateIndex
CREATE INDEX "workers_last_heartbeat_idx" ON "workers"("last_heartbeat");

-- CreateIndex
CREATE INDEX "runs_team_id_created_at_idx" ON "runs"("team_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "runs_team_id_status_idx" ON "runs"("team_id", "status");

-- CreateIndex
CREATE INDEX "runs_status_created_at_idx" ON "runs"("status", "created_at");

-- CreateIndex
CREATE INDEX "trajectories_run_id_step_success_idx" ON "trajectories"("run_id", "step", "success");

-- CreateIndex
CREATE INDEX "trajectories_run_id_split_step_idx" ON "trajectories"("run_id", "split", "step");

-- CreateIndex
CREATE INDEX "trajectories_run_id_hallucinated_step_idx" ON "trajectories"("run_id", "hallucinated", "step");

-- CreateIndex
CREATE UNIQUE INDEX "trajectories_run_id_step_split_group_index_index_in_group_key" ON "trajectories"("run_id", "step", "split", "group_index", "index_in_group");

-- CreateIndex
CREATE UNIQUE INDEX "checkpoints_run_id_step_kind_key" ON "checkpoints"("run_id", "step", "kind");

-- CreateIndex
CREATE INDEX "run_logs_run_id_id_idx" ON "run_logs"("run_id", "id");

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invites" ADD CONSTRAINT "invites_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "base_models" ADD CONSTRAINT "base_models_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "workers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metric_points" ADD CONSTRAINT "metric_points_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metric_summaries" ADD CONSTRAINT "metric_summaries_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "trajectories" ADD CONSTRAINT "trajectories_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_trajectory_id_fkey" FOREIGN KEY ("trajectory_id") REFERENCES "trajectories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkpoints" ADD CONSTRAINT "checkpoints_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkpoint_chunks" ADD CONSTRAINT "checkpoint_chunks_checkpoint_id_fkey" FOREIGN KEY ("checkpoint_id") REFERENCES "checkpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_logs" ADD CONSTRAINT "run_logs_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

