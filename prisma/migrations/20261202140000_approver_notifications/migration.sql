-- Webhook notifications to approvers (ADR 0070): one row per (confirmation, event), claimed by
-- the unique key, so each is enqueued once across authorizer replicas; a lease lets one replica at
-- a time send it; its delivery (or giving up) is recorded on the row.
CREATE TABLE "approver_notifications" (
    "delivery_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "confirmation_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "lease_until" TIMESTAMPTZ(3),
    "last_status" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "abandoned_at" TIMESTAMPTZ(3),
    CONSTRAINT "approver_notifications_pkey" PRIMARY KEY ("delivery_id", "tenant"),
    CONSTRAINT "approver_notifications_event_check" CHECK ("event" IN ('confirmation.parked', 'confirmation.expiring'))
);

CREATE UNIQUE INDEX "approver_notifications_confirmation_id_event_tenant_key" ON "approver_notifications"("confirmation_id", "event", "tenant");
-- The sender's scan: what is still to be sent, soonest first.
CREATE INDEX "approver_notifications_due_idx" ON "approver_notifications"("next_attempt_at") WHERE "delivered_at" IS NULL AND "abandoned_at" IS NULL;
