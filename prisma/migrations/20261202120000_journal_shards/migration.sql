-- The journal in chains (shards), one head row each (ADR 0062). The one head row becomes shard 0,
-- which keeps the chain name "main": every row written before keeps its chain, its seq and its
-- hash, so a journal migrated from one chain verifies unchanged. `npm run migrate` then creates
-- the heads of shards 1..JOURNAL_SHARDS-1 (chains "shard-<k>", at the genesis hash); this file
-- creates none, so a database that is never given more shards stays one chain.
ALTER TABLE "journal_head" ADD COLUMN "shard" INTEGER;
UPDATE "journal_head" SET "shard" = 0 WHERE "id" = 1;
ALTER TABLE "journal_head" ALTER COLUMN "shard" SET NOT NULL;
ALTER TABLE "journal_head" DROP CONSTRAINT "journal_head_pkey";
ALTER TABLE "journal_head" DROP COLUMN "id";
ALTER TABLE "journal_head" ADD CONSTRAINT "journal_head_pkey" PRIMARY KEY ("shard");
ALTER TABLE "journal_head" ADD CONSTRAINT "journal_head_shard_range" CHECK ("shard" >= 0 AND "shard" < 64);
CREATE UNIQUE INDEX "journal_head_chain_key" ON "journal_head"("chain");

-- journalSeq is gap-free within its chain, so the key is (chain, journal_seq). The rebuild locks
-- the journal while it runs. One final entry per tenant's decision stays a fact of the whole
-- table (journal_final_decision_id_tenant_key has no chain column): a decision whose entries
-- landed in two chains still could not get two finals.
ALTER TABLE "journal" DROP CONSTRAINT "journal_pkey";
ALTER TABLE "journal" ADD CONSTRAINT "journal_pkey" PRIMARY KEY ("chain", "journal_seq");
