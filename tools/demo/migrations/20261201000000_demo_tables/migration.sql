-- The demo tools' own tables. Databases migrated before tools were packages already have them
-- (created by the project's migrations 20261129000000_init, 20261130010000_runs and
-- 20261130020000_authorization_gates, which stay as history): IF NOT EXISTS adopts those, with
-- the same definitions, and creates them on a database that lacks them (ADR 0022).
CREATE TABLE IF NOT EXISTS "notes" (
    "id" BIGSERIAL NOT NULL,
    "capability_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "notes_pkey" PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "notes_capability_id_idx" ON "notes"("capability_id");

CREATE TABLE IF NOT EXISTS "flaky_attempts" (
    "idempotency_key" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    CONSTRAINT "flaky_attempts_pkey" PRIMARY KEY ("idempotency_key")
);

CREATE TABLE IF NOT EXISTS "flaky_effects" (
    "id" BIGSERIAL NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "capability_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "flaky_effects_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX IF NOT EXISTS "flaky_effects_idempotency_key_key" ON "flaky_effects"("idempotency_key");

CREATE TABLE IF NOT EXISTS "mail_sink" (
    "id" BIGSERIAL NOT NULL,
    "capability_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "recipient" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "mail_sink_pkey" PRIMARY KEY ("id")
);

CREATE TABLE IF NOT EXISTS "ledger_transfers" (
    "id" BIGSERIAL NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "capability_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "from_account" TEXT NOT NULL,
    "to_account" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ledger_transfers_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX IF NOT EXISTS "ledger_transfers_idempotency_key_key" ON "ledger_transfers"("idempotency_key");
