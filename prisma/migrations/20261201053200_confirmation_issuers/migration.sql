-- The issuer of the requester's token (shown to approvers) and of the approver's (ADR 0032).
-- Rows written before are left NULL: the issuer was not kept then.
ALTER TABLE "confirmations" ADD COLUMN "issuer" TEXT;
ALTER TABLE "confirmations" ADD COLUMN "decided_by_issuer" TEXT;
