-- A row the broker can never accept (too large) is set aside instead of blocking the relay:
-- it stays unpublished, is never sent again, and operators list it (`cli outbox --quarantined`).
ALTER TABLE "outbox" ADD COLUMN "quarantined_at" TIMESTAMPTZ(3);
ALTER TABLE "outbox" ADD COLUMN "quarantine_reason" TEXT;

-- Counted on every /metrics scrape and listed by the CLI: only the few quarantined rows.
CREATE INDEX "outbox_quarantined_seq_idx" ON "outbox"("seq") WHERE quarantined_at IS NOT NULL;
