-- CreateTable
CREATE TABLE "store_identity" (
    "id" INTEGER NOT NULL,
    "seed" TEXT NOT NULL,

    CONSTRAINT "store_identity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "decision_inbox" (
    "decision_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "causal_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "body_sha256" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "decision_inbox_pkey" PRIMARY KEY ("decision_id")
);

-- CreateTable
CREATE TABLE "intents" (
    "intent_id" TEXT NOT NULL,
    "decision_id" TEXT NOT NULL,
    "capability_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "causal_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "process_id" TEXT NOT NULL,
    "payload_canonical" TEXT NOT NULL,
    "payload_sha256" TEXT NOT NULL,
    "effect_context" JSONB NOT NULL,
    "effect_context_commitment" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "catalog_fingerprint" TEXT NOT NULL,
    "intent_commitment" TEXT NOT NULL,
    "receipt_id" TEXT NOT NULL,
    "durable_position" BIGINT NOT NULL,
    "store_fingerprint" TEXT NOT NULL,
    "committed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "intents_pkey" PRIMARY KEY ("intent_id")
);

-- CreateTable
CREATE TABLE "capabilities" (
    "capability_id" TEXT NOT NULL,
    "decision_id" TEXT NOT NULL,
    "intent_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "commitment" TEXT NOT NULL,
    "bound_receipt_id" TEXT,
    "consumed_by" TEXT,
    "revoked_reason" TEXT,
    "minted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "activated_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),

    CONSTRAINT "capabilities_pkey" PRIMARY KEY ("capability_id")
);

-- CreateTable
CREATE TABLE "effects" (
    "capability_id" TEXT NOT NULL,
    "intent_id" TEXT NOT NULL,
    "decision_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "dispatcher_id" TEXT NOT NULL,
    "reason_code" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "effects_pkey" PRIMARY KEY ("capability_id")
);

-- CreateTable
CREATE TABLE "outbox" (
    "seq" BIGSERIAL NOT NULL,
    "topic" TEXT NOT NULL,
    "message_key" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "headers" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "journal" (
    "journal_seq" BIGINT NOT NULL,
    "kind" TEXT NOT NULL,
    "decision_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "effect_boundary" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "reason_code" TEXT,
    "final_decision_id" TEXT,
    "result_capability_id" TEXT,
    "entry" TEXT NOT NULL,
    "prev_hash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "journal_pkey" PRIMARY KEY ("journal_seq")
);

-- CreateTable
CREATE TABLE "journal_head" (
    "id" INTEGER NOT NULL,
    "last_seq" BIGINT NOT NULL,
    "last_hash" TEXT NOT NULL,

    CONSTRAINT "journal_head_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notes" (
    "id" BIGSERIAL NOT NULL,
    "capability_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "decision_inbox_run_id_idx" ON "decision_inbox"("run_id");

-- CreateIndex
CREATE UNIQUE INDEX "intents_decision_id_key" ON "intents"("decision_id");

-- CreateIndex
CREATE UNIQUE INDEX "intents_capability_id_key" ON "intents"("capability_id");

-- CreateIndex
CREATE UNIQUE INDEX "intents_receipt_id_key" ON "intents"("receipt_id");

-- CreateIndex
CREATE INDEX "intents_intent_commitment_idx" ON "intents"("intent_commitment");

-- CreateIndex
CREATE INDEX "intents_idempotency_key_idx" ON "intents"("idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "intents_store_fingerprint_durable_position_key" ON "intents"("store_fingerprint", "durable_position");

-- CreateIndex
CREATE UNIQUE INDEX "intents_run_id_causal_id_key" ON "intents"("run_id", "causal_id");

-- CreateIndex
CREATE UNIQUE INDEX "capabilities_decision_id_key" ON "capabilities"("decision_id");

-- CreateIndex
CREATE UNIQUE INDEX "capabilities_intent_id_key" ON "capabilities"("intent_id");

-- CreateIndex
CREATE UNIQUE INDEX "capabilities_bound_receipt_id_key" ON "capabilities"("bound_receipt_id");

-- CreateIndex
CREATE INDEX "effects_state_idx" ON "effects"("state");

-- CreateIndex
CREATE INDEX "outbox_published_at_seq_idx" ON "outbox"("published_at", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "journal_final_decision_id_key" ON "journal"("final_decision_id");

-- CreateIndex
CREATE UNIQUE INDEX "journal_result_capability_id_key" ON "journal"("result_capability_id");

-- CreateIndex
CREATE UNIQUE INDEX "journal_hash_key" ON "journal"("hash");

-- CreateIndex
CREATE INDEX "journal_run_id_idx" ON "journal"("run_id");

-- CreateIndex
CREATE INDEX "journal_decision_id_idx" ON "journal"("decision_id");

-- CreateIndex
CREATE INDEX "notes_capability_id_idx" ON "notes"("capability_id");

-- Seed rows and the outbox wake-up, which Prisma's schema language cannot express.
INSERT INTO "store_identity" ("id", "seed") VALUES (1, md5(random()::text || clock_timestamp()::text));
INSERT INTO "journal_head" ("id", "last_seq", "last_hash") VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');

-- One NOTIFY per inserting statement, delivered at commit, wakes the relays.
CREATE FUNCTION "arvis_outbox_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('arvis_outbox', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER "outbox_notify" AFTER INSERT ON "outbox" FOR EACH STATEMENT EXECUTE FUNCTION "arvis_outbox_notify"();

-- Append-only journal: no UPDATE or DELETE through ordinary statements.
CREATE FUNCTION "arvis_journal_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'journal is append-only';
END;
$$;
CREATE TRIGGER "journal_append_only" BEFORE UPDATE OR DELETE ON "journal" FOR EACH ROW EXECUTE FUNCTION "arvis_journal_append_only"();
