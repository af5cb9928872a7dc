-- The relay reads `published_at IS NULL ORDER BY seq`. With only the (published_at, seq) index
-- the planner walked the primary key past every published row (measured: 572 ms per empty poll
-- with 152,000 published rows); this index holds unpublished rows only.
-- CreateIndex
CREATE INDEX "outbox_unpublished_seq_idx" ON "outbox"("seq") WHERE published_at IS NULL;
