-- Operator remedies through the admin API (ADR 0036). Each act is also an operator_action
-- journal entry; these columns and tables hold the state the act changed, so that it happens once.

-- An effect_state_unknown the operator resolved after checking the outside world: the row moves
-- to the outcome found (effect_completed, or effect_not_started, which frees its idempotency key),
-- once. The journal keeps the final effect_state_unknown entry and adds the resolution after it.
ALTER TABLE "effects" ADD COLUMN "resolved_at" TIMESTAMPTZ(3);
ALTER TABLE "effects" ADD COLUMN "resolved_by_issuer" TEXT;
ALTER TABLE "effects" ADD COLUMN "resolved_by" TEXT;
ALTER TABLE "effects" ADD COLUMN "resolution_note" TEXT;

-- A quarantined outbox row the operator gave up on: it stays (quarantined, never sent), out of
-- the listing.
ALTER TABLE "outbox" ADD COLUMN "discarded_at" TIMESTAMPTZ(3);

-- What happened to each dead letter (a record on a DLQ topic, which cannot be changed): sent
-- again to its source topic, or discarded. The key makes either happen once.
CREATE TABLE "dead_letter_dispositions" (
    "dlq_topic" TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    "offset" BIGINT NOT NULL,
    "disposition" TEXT NOT NULL,
    "source_topic" TEXT NOT NULL,
    "reason_code" TEXT NOT NULL,
    "decided_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_by_issuer" TEXT NOT NULL,
    "decided_by" TEXT NOT NULL,
    "note" TEXT,

    CONSTRAINT "dead_letter_dispositions_pkey" PRIMARY KEY ("dlq_topic", "partition", "offset"),
    CONSTRAINT "dead_letter_dispositions_disposition_check" CHECK ("disposition" IN ('redriven', 'discarded'))
);

-- A store fingerprint the operator declared this database the continuation of, after a restore
-- into another cluster or database (docs/operations.md). Dispatchers accept receipts bound to it.
CREATE TABLE "store_rebinds" (
    "from_fingerprint" TEXT NOT NULL,
    "to_fingerprint" TEXT NOT NULL,
    "rebound_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rebound_by_issuer" TEXT NOT NULL,
    "rebound_by" TEXT NOT NULL,
    "note" TEXT,

    CONSTRAINT "store_rebinds_pkey" PRIMARY KEY ("from_fingerprint")
);
