-- A consumed capability is first claimed (effect_pending, no body running); it is marked
-- effect_started only when its body starts. started_at therefore stays empty until then.
ALTER TABLE "effects" ADD COLUMN "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "effects" ADD COLUMN "idempotency_key" TEXT;
ALTER TABLE "effects" ALTER COLUMN "started_at" DROP NOT NULL;
ALTER TABLE "effects" ALTER COLUMN "started_at" DROP DEFAULT;
UPDATE "effects" SET "claimed_at" = "started_at" WHERE "started_at" IS NOT NULL;
