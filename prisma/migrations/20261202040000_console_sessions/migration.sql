-- Approver console sessions (ADR 0037). The cookie holds a random session id; only its SHA-256
-- is stored, so a read of this table signs no one in (the CSRF token is derived from the id).
-- A session ends at expires_at (at most CONSOLE_SESSION_TTL_MS, never after its token's exp)
-- or when revoked_at is set (sign-out), or once its token's IdP session (idp_session_hash, the
-- SHA-256 of the token's sid, as in revoked_sessions) is revoked. The approver's identity is kept
-- as verified at sign-in, without the raw sid.
CREATE TABLE console_sessions (
  session_id_hash text PRIMARY KEY,
  tenant          text NOT NULL,
  principal       text NOT NULL,
  issuer          text NOT NULL,
  identity        jsonb NOT NULL,
  idp_session_hash text,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  expires_at      timestamptz(3) NOT NULL,
  revoked_at      timestamptz(3),
  CHECK (expires_at > created_at)
);

-- Ended sessions are deleted by later sign-ins, oldest first.
CREATE INDEX console_sessions_expires_at ON console_sessions (expires_at);
