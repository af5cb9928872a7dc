-- The chain a journal entry belongs to (one, "main", today; sharded chains later). Rows written
-- before this migration take the default: their hashed entry text has no `chain` key, and
-- verifiers read a missing key as "main" (docs/journal-topic.md). A constant default rewrites no
-- row, so the append-only triggers are not involved.
ALTER TABLE "journal" ADD COLUMN "chain" TEXT NOT NULL DEFAULT 'main';
ALTER TABLE "journal_head" ADD COLUMN "chain" TEXT NOT NULL DEFAULT 'main';

-- Signed checkpoints of the chain head, one row per checkpoint published to the journal topic
-- (through the outbox, in the same transaction). The writer reads the last one to know when the
-- next is due; the key makes a second checkpoint of the same head impossible.
CREATE TABLE "journal_checkpoints" (
    "chain" TEXT NOT NULL,
    "journal_seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "record" TEXT NOT NULL,
    "signed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "journal_checkpoints_pkey" PRIMARY KEY ("chain", "journal_seq")
);
