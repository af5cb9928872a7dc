-- A body's result that came after its effect was closed unknown (ADR 0056): recorded on the row
-- (and journaled, non-final) so "not happened" can be refused while the body may still run, and
-- refused for good once it says it acted. A late timeout is not an end: its settlement may follow.
ALTER TABLE "effects" ADD COLUMN "late_state" TEXT;
ALTER TABLE "effects" ADD COLUMN "late_reason_code" TEXT;
ALTER TABLE "effects" ADD COLUMN "late_at" TIMESTAMPTZ(3);
