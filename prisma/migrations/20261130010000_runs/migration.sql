-- CreateTable
CREATE TABLE "runs" (
    "run_id" TEXT NOT NULL,
    "audit_incomplete" BOOLEAN NOT NULL DEFAULT false,
    "audit_incomplete_reason" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("run_id")
);
