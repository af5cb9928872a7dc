-- No bearer token at rest (ADR 0035): the inbox keeps the claims verified from a decision's token
-- and the token's SHA-256, and its body is the decision without the token.
ALTER TABLE "decision_inbox" ADD COLUMN "identity_sha256" TEXT;
ALTER TABLE "decision_inbox" ADD COLUMN "identity_claims" JSONB;
-- The requester's cross-issuer person key, when their issuer maps one (ADR 0035); NULL before.
ALTER TABLE "confirmations" ADD COLUMN "requester_person" TEXT;

-- Rows received before: every one gets its token's SHA-256. The token itself is removed now from
-- the rows that can never use it again: refused decisions (never resumed nor retried) and tokens
-- whose exp has passed (a retry or resume would be refused for it anyway). A parked or authorized
-- decision with a live token keeps it until it is resumed or retried (the authorizer then verifies
-- it once more, keeps its claims and drops it) or until the statement in docs/upgrading.md.
-- Canonical JSON sorts keys, so the first "identity":"…", is the decision's own field, and
-- "payload" always follows it.
CREATE FUNCTION pg_temp.arvis_token_exp(token TEXT) RETURNS DOUBLE PRECISION LANGUAGE plpgsql AS $$
DECLARE
  seg TEXT := translate(split_part(token, '.', 2), '-_', '+/');
BEGIN
  seg := seg || repeat('=', (4 - length(seg) % 4) % 4);
  RETURN (convert_from(decode(seg, 'base64'), 'UTF8')::jsonb ->> 'exp')::DOUBLE PRECISION;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;

WITH legacy AS (
  SELECT decision_id, substring(body FROM '"identity":"([A-Za-z0-9_.-]+)"') AS token
  FROM "decision_inbox" WHERE body IS NOT NULL AND identity_claims IS NULL
)
UPDATE "decision_inbox" di
SET identity_sha256 = encode(sha256(convert_to(l.token, 'UTF8')), 'hex'),
    body = CASE
      WHEN di.status = 'refused' OR coalesce(pg_temp.arvis_token_exp(l.token), 0) < extract(epoch FROM now())
        THEN regexp_replace(di.body, '"identity":"[A-Za-z0-9_.-]+",', '')
      ELSE di.body END
FROM legacy l
WHERE di.decision_id = l.decision_id AND l.token IS NOT NULL;
