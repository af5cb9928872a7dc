-- Every uniqueness built on a producer's ids is scoped by tenant (ADR 0061): a valid token of one
-- tenant can no longer take another tenant's decisionId, runId or causalId. The wire keeps the
-- producer's ids; the keys gain the tenant, second, so a lookup by the id alone (the CLI, retention) still uses them.

-- The inbox learns its decision's tenant: from the verified claims it keeps (ADR 0035), else from
-- its confirmation, its intent or its journal entries (ids were unique until now, so each names
-- this decision), else the tenant a refusal without identity is recorded under.
ALTER TABLE "decision_inbox" ADD COLUMN "tenant" TEXT;
UPDATE "decision_inbox" di SET "tenant" = coalesce(
  di."identity_claims" ->> 'tenant',
  (SELECT c."tenant" FROM "confirmations" c WHERE c."decision_id" = di."decision_id"),
  (SELECT i."tenant" FROM "intents" i WHERE i."decision_id" = di."decision_id"),
  (SELECT j."tenant" FROM "journal" j WHERE j."decision_id" = di."decision_id" ORDER BY j."journal_seq" LIMIT 1),
  '__unknown__');
ALTER TABLE "decision_inbox" ALTER COLUMN "tenant" SET NOT NULL;
ALTER TABLE "decision_inbox" DROP CONSTRAINT "decision_inbox_pkey";
ALTER TABLE "decision_inbox" ADD CONSTRAINT "decision_inbox_pkey" PRIMARY KEY ("decision_id", "tenant");

DROP INDEX "intents_decision_id_key";
CREATE UNIQUE INDEX "intents_decision_id_tenant_key" ON "intents"("decision_id", "tenant");
DROP INDEX "intents_run_id_causal_id_key";
CREATE UNIQUE INDEX "intents_run_id_causal_id_tenant_key" ON "intents"("run_id", "causal_id", "tenant");

-- One capability per intent (capabilities_intent_id_key) is the guarantee; an intent is one per
-- (tenant, decision), so the decision id alone is only looked up, not unique.
DROP INDEX "capabilities_decision_id_key";
CREATE INDEX "capabilities_decision_id_idx" ON "capabilities"("decision_id");

DROP INDEX "confirmations_decision_id_key";
CREATE UNIQUE INDEX "confirmations_decision_id_tenant_key" ON "confirmations"("decision_id", "tenant");

-- One final entry per decision, a database fact (ADR 0002), now per tenant's decision.
DROP INDEX "journal_final_decision_id_key";
CREATE UNIQUE INDEX "journal_final_decision_id_tenant_key" ON "journal"("final_decision_id", "tenant");

-- Retries: the parent's tenant; a retry's id is derived from its chain, unique within the tenant.
ALTER TABLE "retries" ADD COLUMN "tenant" TEXT;
UPDATE "retries" r SET "tenant" = coalesce(
  (SELECT i."tenant" FROM "intents" i WHERE i."decision_id" = r."parent_decision_id" LIMIT 1),
  (SELECT j."tenant" FROM "journal" j WHERE j."decision_id" = r."parent_decision_id" ORDER BY j."journal_seq" LIMIT 1),
  '__unknown__');
ALTER TABLE "retries" ALTER COLUMN "tenant" SET NOT NULL;
ALTER TABLE "retries" DROP CONSTRAINT "retries_pkey";
ALTER TABLE "retries" ADD CONSTRAINT "retries_pkey" PRIMARY KEY ("decision_id", "tenant");
DROP INDEX "retries_chain_id_attempt_key";
CREATE UNIQUE INDEX "retries_chain_id_attempt_tenant_key" ON "retries"("chain_id", "attempt", "tenant");

-- Runs whose record is incomplete, per tenant's run.
ALTER TABLE "runs" ADD COLUMN "tenant" TEXT;
UPDATE "runs" r SET "tenant" = coalesce(
  (SELECT j."tenant" FROM "journal" j WHERE j."run_id" = r."run_id" ORDER BY j."journal_seq" LIMIT 1), '__unknown__');
ALTER TABLE "runs" ALTER COLUMN "tenant" SET NOT NULL;
ALTER TABLE "runs" DROP CONSTRAINT "runs_pkey";
ALTER TABLE "runs" ADD CONSTRAINT "runs_pkey" PRIMARY KEY ("run_id", "tenant");
