-- Every row and index earns its place (ADR 0048). A row version whose update changes no indexed
-- column (key, INCLUDE or partial predicate) can be a HOT update: no index entry is written. So
-- state columns leave every index, the moves of a row that need no index lookup change no indexed
-- column, and the tables that are updated keep room on each page for the new version.

-- capabilities ----------------------------------------------------------------------------------
-- No query reads capabilities by state except redelivery (minted ones): the full state index
-- took an entry on every move. What redelivery needs is the few not yet activated nor revoked.
DROP INDEX "capabilities_state_idx";
CREATE INDEX "capabilities_unactivated_minted_at_idx" ON "capabilities"("minted_at")
  WHERE "activated_at" IS NULL AND "revoked_reason" IS NULL;
-- "One receipt activates one capability, ever" stays this unique index; only rows that hold a
-- receipt need an entry (a minted or revoked capability holds none).
DROP INDEX "capabilities_bound_receipt_id_key";
CREATE UNIQUE INDEX "capabilities_bound_receipt_id_key" ON "capabilities"("bound_receipt_id") WHERE "bound_receipt_id" IS NOT NULL;
-- Activation leaves the redelivery index (never HOT); consumption and revocation of an activated
-- capability change no indexed column and find room for the new version on the page.
ALTER TABLE "capabilities" SET (fillfactor = 90);

-- intents ---------------------------------------------------------------------------------------
-- No statement looks intents up by idempotency key or by commitment.
DROP INDEX "intents_idempotency_key_idx";
DROP INDEX "intents_intent_commitment_idx";

-- effects ---------------------------------------------------------------------------------------
-- One live effect per idempotency key (ADR 0020) was a partial unique index whose predicate read
-- state, so every move of every effect wrote index entries. live_key is the key while the effect
-- holds it (set at the claim, cleared by the move that releases it); the CHECK makes it exactly
-- the old predicate, so the unique index on it is exactly the old guarantee.
ALTER TABLE "effects" ADD COLUMN "live_key" TEXT;
UPDATE "effects" SET "live_key" = "idempotency_key"
  WHERE "holds_key" AND "state" IN ('effect_pending', 'effect_started', 'effect_completed', 'effect_state_unknown');
ALTER TABLE "effects" ADD CONSTRAINT "effects_live_key_is_the_held_key" CHECK (
  CASE WHEN "holds_key" AND "state" IN ('effect_pending', 'effect_started', 'effect_completed', 'effect_state_unknown')
       THEN coalesce("live_key" = "idempotency_key", false)
       ELSE "live_key" IS NULL END);
DROP INDEX "effects_one_live_effect_per_key";
CREATE UNIQUE INDEX "effects_live_key_key" ON "effects"("live_key") WHERE "live_key" IS NOT NULL;

-- Recovery looks for open effects (claimed or started, not finished) past their deadline. The
-- deadline moves at the start and with the heartbeat; claimed_at never moves, and finished_at is
-- set once, by the move that closes the effect: only that move leaves this index.
DROP INDEX "effects_state_idx";
DROP INDEX "effects_state_deadline_at_idx";
CREATE INDEX "effects_open_claimed_at_idx" ON "effects"("claimed_at") WHERE "finished_at" IS NULL;

-- Duplicates are found by their holder; waits_for is written once, at the duplicate's insert.
DROP INDEX "effects_waits_for_idx";
CREATE INDEX "effects_waits_for_idx" ON "effects"("waits_for") WHERE "waits_for" IS NOT NULL;

-- Retention's pass over finished key holders walks them by claim time (a finished holder's
-- finished_at is never earlier), so finishing an effect changes no column of this index.
DROP INDEX "effects_key_holders_finished_at_idx";
CREATE INDEX "effects_key_holders_claimed_at_idx" ON "effects"("claimed_at") WHERE "live_key" IS NOT NULL;
ALTER TABLE "effects" SET (fillfactor = 50);

-- confirmations ---------------------------------------------------------------------------------
-- Moved several times in a parked decision's life; its indexes carry guarantees and the console's
-- listing, so only room for the new version on the page.
ALTER TABLE "confirmations" SET (fillfactor = 80);

-- outbox ----------------------------------------------------------------------------------------
-- The relay deletes a row once the broker acknowledged it (ADR 0048), so every row in the table
-- is unpublished or quarantined: the relay reads the primary key in seq order, and the few
-- quarantined rows are found by a scan of what is left. Rows published before are on the topic
-- and nothing reads them again: they go now, so the relay's scan does not walk them.
DROP INDEX "outbox_published_at_seq_idx";
DROP INDEX "outbox_unpublished_seq_idx";
DROP INDEX "outbox_quarantined_seq_idx";
DELETE FROM "outbox" WHERE "published_at" IS NOT NULL;
