-- The approver console's history (ADR 0069): a tenant's confirmations newest first, keyset-paged
-- on (requested_at, confirmation_id). No state column is indexed (status stays out).
CREATE INDEX "confirmations_tenant_requested_at_confirmation_id_idx" ON "confirmations"("tenant", "requested_at", "confirmation_id");
