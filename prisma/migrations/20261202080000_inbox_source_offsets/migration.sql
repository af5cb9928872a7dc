-- Where each decision was read from the decisions topic (ADR 0041): its inbox row is what makes a
-- redelivery of that message a no-op, so retention may prune the row only once the broker can no
-- longer deliver the message, i.e. its offset is below the partition's low watermark. Kafka keeps
-- whole segments, the active one and future-stamped or compacted records past retention.ms, so
-- the topic's retention.ms alone does not say that. Both NULL: not from the topic (a retry).
-- Rows from before carry partition -1: their offset is unknown, and they are pruned by the old
-- rule (the dedupe window longer than the topic's retention.ms).
ALTER TABLE "decision_inbox" ADD COLUMN "source_partition" INTEGER;
ALTER TABLE "decision_inbox" ADD COLUMN "source_offset" BIGINT;
UPDATE "decision_inbox" SET "source_partition" = -1;
