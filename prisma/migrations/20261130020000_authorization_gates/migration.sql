-- CreateTable
CREATE TABLE "revoked_sessions" (
    "session_id_hash" TEXT NOT NULL,
    "revoked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "revoked_sessions_pkey" PRIMARY KEY ("session_id_hash")
);

-- CreateTable
CREATE TABLE "consent_grants" (
    "tenant" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "consent_key" TEXT NOT NULL,
    "granted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "consent_grants_pkey" PRIMARY KEY ("tenant","principal","consent_key")
);

-- CreateTable
CREATE TABLE "egress_policies" (
    "tenant" TEXT NOT NULL,
    "provider" TEXT NOT NULL,

    CONSTRAINT "egress_policies_pkey" PRIMARY KEY ("tenant","provider")
);

-- CreateTable
CREATE TABLE "confirmations" (
    "confirmation_id" TEXT NOT NULL,
    "decision_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "payload_sha256" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by" TEXT,
    "grant_expires_at" TIMESTAMPTZ(3),
    "reserved_by" TEXT,
    "resumed_at" TIMESTAMPTZ(3),

    CONSTRAINT "confirmations_pkey" PRIMARY KEY ("confirmation_id")
);

-- CreateTable
CREATE TABLE "mail_sink" (
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

-- CreateTable
CREATE TABLE "ledger_transfers" (
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

-- CreateIndex
CREATE UNIQUE INDEX "confirmations_decision_id_key" ON "confirmations"("decision_id");

-- CreateIndex
CREATE INDEX "confirmations_tenant_status_idx" ON "confirmations"("tenant", "status");

-- CreateIndex
CREATE UNIQUE INDEX "confirmations_reserved_by_key" ON "confirmations"("reserved_by");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_transfers_idempotency_key_key" ON "ledger_transfers"("idempotency_key");
