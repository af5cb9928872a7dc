-- The outbox's shard count is the database's, not each relay's (ADR 0089, 2026-12-05). Relays
-- with different counts would put one run's rows in two shards under two locks, and two relays
-- could then publish one run at once. Every relay batch reads this count under its shard's lock
-- and publishes only if it is the one it chose its rows with; `npm run migrate` changes it while
-- holding every shard's lock. One row of database-wide facts already exists: it goes there.
ALTER TABLE "store_identity" ADD COLUMN "relay_shards" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "store_identity" ADD CONSTRAINT "store_identity_relay_shards_range" CHECK ("relay_shards" BETWEEN 1 AND 64);
