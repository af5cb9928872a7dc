-- CreateTable
CREATE TABLE "runs" (
    "run_id" TEXT NOT NULL,
    "audit_incomplete" BOOLEAN NOT NULL DEFAULT false,
    "audit_incomplete_reason" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("run_id")
);

-- AlterTable
ALTER TABLE "decision_inbox" ADD COLUMN "body" TEXT;

-- CreateTable
CREATE TABLE "retries" (
    "decision_id" TEXT NOT NULL,
    "chain_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "parent_decision_id" TEXT NOT NULL,
    "parent_causal_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "submitted_at" TIMESTAMPTZ(3),

    CONSTRAINT "retries_pkey" PRIMARY KEY ("decision_id")
);

-- CreateIndex
CREATE INDEX "retries_status_idx" ON "retries"("status");

-- CreateIndex
CREATE UNIQUE INDEX "retries_chain_id_attempt_key" ON "retries"("chain_id", "attempt");

-- CreateTable
CREATE TABLE "flaky_attempts" (
    "idempotency_key" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,

    CONSTRAINT "flaky_attempts_pkey" PRIMARY KEY ("idempotency_key")
);

-- CreateTable
CREATE TABLE "flaky_effects" (
    "id" BIGSERIAL NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "capability_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "flaky_effects_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "flaky_effects_idempotency_key_key" ON "flaky_effects"("idempotency_key");
