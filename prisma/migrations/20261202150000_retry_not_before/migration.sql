-- ADR 0076: a retry waits for its not-before time (the failure it answers plus its tool's backoff,
-- database time), and the retry worker takes only rows whose time has come. Rows from before the
-- upgrade are due at once, as they were.
ALTER TABLE "retries" ADD COLUMN "not_before" TIMESTAMPTZ(3) NOT NULL DEFAULT now();
-- The worker's question: pending rows in not-before order.
CREATE INDEX "retries_pending_not_before_idx" ON "retries" ("not_before") WHERE "status" = 'pending';
