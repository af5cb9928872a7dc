-- Capabilities write fewer index entries (ADR 0048, 2026-12-03). The dispatcher's one UPDATE
-- that activates and consumes a capability cannot be HOT: it takes the row out of the redelivery
-- index, which is what keeps redelivery's pass bounded. A non-HOT update writes an entry in every
-- index whose predicate the new version meets, so each index here cost an entry at the mint and
-- another at the consumption.

-- "One receipt activates at most one capability" no longer needs its own index: the activating
-- UPDATE binds a capability only to the receipt of its own intent (a join on intents by receipt
-- whose capability_id must be the capability's), and intents_receipt_id_key and
-- intents_capability_id_key make that one capability per receipt. The reconciliation after a
-- restore binds the intent's receipt the same way.
DROP INDEX "capabilities_bound_receipt_id_key";

-- Only show-run read capabilities by decision; it reaches them through its intents now
-- (intents_decision_id_tenant_key, then the capability's primary key).
DROP INDEX "capabilities_decision_id_idx";
