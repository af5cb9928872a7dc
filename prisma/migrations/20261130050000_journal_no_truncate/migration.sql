-- The append-only trigger is per row, and TRUNCATE fires no row triggers: refuse it too.
-- (Triggers are outside Prisma's schema language, so this lives in migrations only.)
CREATE TRIGGER "journal_no_truncate" BEFORE TRUNCATE ON "journal" FOR EACH STATEMENT EXECUTE FUNCTION "arvis_journal_append_only"();
