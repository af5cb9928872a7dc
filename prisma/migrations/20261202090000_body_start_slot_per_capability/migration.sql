-- One body-start slot per capability (ADR 0056). Recovery takes the slot of a started effect
-- whose dispatcher is lost (a fence row, recovery_fence = true) before it calls it not started;
-- a body whose own marker then conflicts does not run. A body writes at most one marker per
-- capability, so no duplicates exist; any left by an older dispatcher keep their first row.
ALTER TABLE "tool_body_starts" ADD COLUMN "recovery_fence" BOOLEAN NOT NULL DEFAULT false;

DELETE FROM "tool_body_starts" a USING "tool_body_starts" b WHERE a."capability_id" = b."capability_id" AND a."id" > b."id";

-- The unique index replaces the plain one: the same one index per marker insert.
DROP INDEX "tool_body_starts_capability_id_idx";
CREATE UNIQUE INDEX "tool_body_starts_capability_id_key" ON "tool_body_starts"("capability_id");
