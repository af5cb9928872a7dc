-- AlterTable
ALTER TABLE "effects" ADD COLUMN "deadline_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "intents" ADD COLUMN "last_delivered_at" TIMESTAMPTZ(3),
ADD COLUMN "message" TEXT;

-- CreateIndex
CREATE INDEX "effects_state_deadline_at_idx" ON "effects"("state", "deadline_at");

-- CreateIndex
CREATE INDEX "capabilities_state_idx" ON "capabilities"("state");
