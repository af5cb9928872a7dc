-- ADR 0080: each tool package names its dispatcher pool. An intent records its tool's pool when it
-- is committed, an effect when it is claimed, so redelivery, recovery and reconciliation of one
-- pool read only its rows. Rows from before the upgrade belong to the shared pool, as they did.
ALTER TABLE "intents" ADD COLUMN "pool" TEXT NOT NULL DEFAULT 'shared';
ALTER TABLE "effects" ADD COLUMN "pool" TEXT NOT NULL DEFAULT 'shared';
