-- Environments a team registers (POST /api/envs): served through the protocol at a URL or by a command
-- under ENV_ROOTS. The API never reaches them; a worker fetches each `pending` one's description.
CREATE TABLE "environments" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT,
    "command" JSONB,
    "cwd" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "description" JSONB,
    "error" TEXT,
    "claimed_at" TIMESTAMPTZ(3),
    "created_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "described_at" TIMESTAMPTZ(3),

    CONSTRAINT "environments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "environments_status_check" CHECK ("status" IN ('pending', 'ready', 'failed')),
    CONSTRAINT "environments_endpoint_check" CHECK (("url" IS NULL) <> ("command" IS NULL))
);

CREATE UNIQUE INDEX "environments_team_id_name_key" ON "environments"("team_id", "name");

ALTER TABLE "environments" ADD CONSTRAINT "environments_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
