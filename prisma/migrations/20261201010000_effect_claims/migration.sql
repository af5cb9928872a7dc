-- A consumed capability is first claimed (effect_pending, no body running); it is marked
-- effect_started only when its body starts. started_at therefore stays empty until then.
ALTER TABLE "effects" ADD COLUMN "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "effects" ADD COLUMN "idempotency_key" TEXT;
ALTER TABLE "effects" ALTER COLUMN "started_at" DROP NOT NULL;
ALTER TABLE "effects" ALTER COLUMN "started_at" DROP DEFAULT;
UPDATE "effects" SET "claimed_at" = "started_at" WHERE "started_at" IS NOT NULL;

-- One effect per logical action: for a tool that does not declare itself safe to repeat, at most
-- one effect row holds its idempotency key while that effect is claimed, running, completed or
-- unknown. A failed, refused or never-started effect releases the key. Later decisions with the
-- key wait for the holder (effect_waiting) or take its final result, and never run the tool.
ALTER TABLE "effects" ADD COLUMN "holds_key" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "effects" ADD COLUMN "waits_for" TEXT;
CREATE UNIQUE INDEX "effects_one_live_effect_per_key" ON "effects" ("idempotency_key")
  WHERE "holds_key" AND "state" IN ('effect_pending', 'effect_started', 'effect_completed', 'effect_state_unknown');
CREATE INDEX "effects_waits_for_idx" ON "effects" ("waits_for") WHERE "state" = 'effect_waiting';
