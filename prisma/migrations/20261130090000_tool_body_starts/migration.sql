-- CreateTable
-- One row per tool body start, written and committed by the demo tools on their own connection
-- before they act: the evidence the chaos suite checks each effect_state_unknown against.
CREATE TABLE "tool_body_starts" (
    "id" BIGSERIAL NOT NULL,
    "capability_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tool_body_starts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tool_body_starts_capability_id_idx" ON "tool_body_starts"("capability_id");
