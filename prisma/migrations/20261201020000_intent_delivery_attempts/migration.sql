-- Redeliveries of an intent are counted, so that they back off and end.
ALTER TABLE "intents" ADD COLUMN "delivery_attempts" INTEGER NOT NULL DEFAULT 0;
