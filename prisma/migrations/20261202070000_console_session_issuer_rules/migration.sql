-- A console session is held to the rules of its issuer's entry as they were at sign-in: the
-- SHA-256 of those rules (as the inbox keeps it for parked decisions, ADR 0035). A session whose
-- issuer entry is gone or whose rules changed ends at its next request, as a bearer token would
-- be judged by the current entry. Sessions opened before this migration have none and end at
-- their next request (they last 15 minutes at most).
ALTER TABLE console_sessions ADD COLUMN issuer_rules_sha256 text;
-- An operator ends a tenant's console sessions by issuer, optionally one principal's.
CREATE INDEX console_sessions_tenant_issuer_principal ON console_sessions (tenant, issuer, principal);
