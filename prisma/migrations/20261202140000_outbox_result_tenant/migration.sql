-- ADR 0073: the tenant of a final journal entry's topic copy, set by the journal appender, so the
-- relay also publishes that copy to the tenant's result topic in the same send. No default and
-- nullable: adding it rewrites nothing, and every other row leaves it NULL.
ALTER TABLE "outbox" ADD COLUMN "result_tenant" TEXT;
