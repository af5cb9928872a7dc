-- Retention (ADR 0041, docs/retention.md). The pruner walks each table it deletes from in the
-- order of that table's own time column, so these indexes keep a pass proportional to what is
-- old, not to the whole table. The journal is not pruned, and journal.recorded_at stays
-- unindexed: pruning reads a decision's final entry through final_decision_id (already unique).
CREATE INDEX "intents_committed_at_intent_id_idx" ON "intents"("committed_at", "intent_id");
CREATE INDEX "decision_inbox_received_at_decision_id_idx" ON "decision_inbox"("received_at", "decision_id");

-- Finished effects that still hold their idempotency key (ADR 0020) outlive their decision's
-- material until the dedupe window ends; only those few are indexed.
CREATE INDEX "effects_key_holders_finished_at_idx" ON "effects"("finished_at")
  WHERE "holds_key" AND "state" = 'effect_completed';

-- How far pruning reached in the journal: intents and capabilities of decisions whose final
-- entry is at or below material_through may be gone. `cli verify` and `cli replay` read it so a
-- tool_result whose stored intent was pruned is not taken for a deleted row. Raised in the same
-- statement that deletes, so a snapshot sees both or neither.
CREATE TABLE "retention_horizon" (
    "chain" TEXT NOT NULL,
    "material_through" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retention_horizon_pkey" PRIMARY KEY ("chain")
);
INSERT INTO "retention_horizon" ("chain") VALUES ('main');
