import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import type { VerifiedIdentity } from '@arvis/effect-context';
import { sha256Hex } from '@arvis/crypto';
import { Database } from '@arvis/persistence';
import { ApiError } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { ApproverGuard } from '../approve-confirmation/approver.guard';
import { issuerRulesSha256 } from '../../policy/verify-identity/stored-identity';

/** What the page gets at sign-in: who is signed in, until when, and the CSRF token for verdicts. */
export interface ConsoleSessionView {
  principal: string;
  tenant: string;
  issuer: string;
  expiresAt: string;
  csrfToken: string;
}

export interface SignedIn extends ConsoleSessionView {
  /** The cookie's value; never in a body. */
  sessionId: string;
  expires: Date;
}

export interface ActiveSession {
  sessionIdHash: string;
  approver: VerifiedIdentity;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

const newSecret = () => randomBytes(32).toString('base64url');

/**
 * The session's CSRF token, derived from its secret id (HMAC-SHA-256 keyed by the id): only whoever
 * holds the HttpOnly cookie can be told it, and nothing more is stored. A reloaded page asks again.
 */
export const csrfTokenOf = (sessionId: string) => createHmac('sha256', sessionId).update('arvis-console-csrf').digest('base64url');

/**
 * Server-side console sessions (ADR 0037). Sign-in checks the pasted token exactly as the approver
 * API does, then stores only the hash of a random session id (the cookie's value). A session
 * ends after CONSOLE_SESSION_TTL_MS or at its token's exp, whichever comes first, at sign-out, or
 * as soon as its IdP session is revoked; every request reads it back on the database's clock.
 * It is also held to its issuer's entry: once the entry is gone or its rules changed (a restart
 * with other TRUSTED_ISSUERS), the session ends, as a bearer token is judged by the current entry.
 */
@Injectable()
export class ConsoleSessionsService {
  /** The current rules of each trusted issuer (SHA-256), as sign-in records them. */
  private readonly rulesOf: ReadonlyMap<string, string>;

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
    private readonly approvers: ApproverGuard,
  ) {
    this.rulesOf = new Map(config.identity.issuers.map((iss) => [iss.issuer, issuerRulesSha256(iss)]));
  }

  /** A pasted (or dev-minted) token, checked as the approver API checks it. */
  async signIn(token: string): Promise<SignedIn> {
    return this.start(await this.approvers.authenticate(token));
  }

  /** A session for an approver already verified and admitted (a token, or an ID token at the OIDC callback). */
  async start(approver: VerifiedIdentity): Promise<SignedIn> {
    const sessionId = newSecret();
    const csrfToken = csrfTokenOf(sessionId);
    // The IdP's session id is kept hashed, as revoked_sessions and the effect context keep it.
    const idpSessionHash = approver.sessionId === null ? null : sha256Hex(approver.sessionId);
    // Ended sessions go first: one statement, bounded, so sign-ins keep the table small.
    await this.db.$executeRaw`
      DELETE FROM console_sessions WHERE session_id_hash IN (
        SELECT session_id_hash FROM console_sessions WHERE expires_at < now() - interval '1 hour' ORDER BY expires_at LIMIT 100)`;
    const rows = await this.db.$queryRaw<{ expires_at: Date }[]>`
      INSERT INTO console_sessions (session_id_hash, tenant, principal, issuer, identity, idp_session_hash, issuer_rules_sha256, expires_at)
      SELECT ${sha256Hex(sessionId)}, ${approver.tenant}, ${approver.principal}, ${approver.issuer},
             ${JSON.stringify({ ...approver, sessionId: null })}::jsonb, ${idpSessionHash}, ${this.rulesOf.get(approver.issuer) ?? null}, e.at
      FROM (SELECT LEAST(now() + ${this.config.console.sessionTtlMs} * interval '1 millisecond', ${approver.expiresAt}::timestamptz) AS at) e
      WHERE e.at > now()
      RETURNING expires_at`;
    if (rows.length !== 1) throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { message: 'the token expires too soon for a session' });
    const expires = rows[0].expires_at;
    return { sessionId, csrfToken, expires, expiresAt: expires.toISOString(), principal: approver.principal, tenant: approver.tenant, issuer: approver.issuer };
  }

  /** The live session for this cookie value, or null (unknown, ended, signed out, IdP session revoked, issuer entry gone or changed). */
  async find(sessionId: string): Promise<ActiveSession | null> {
    const rows = await this.db.$queryRaw<{ identity: VerifiedIdentity & { expiresAt: string }; created_at: Date; expires_at: Date; issuer: string; issuer_rules_sha256: string | null }[]>`
      SELECT s.identity, s.created_at, s.expires_at, s.issuer, s.issuer_rules_sha256 FROM console_sessions s
      WHERE s.session_id_hash = ${sha256Hex(sessionId)} AND s.revoked_at IS NULL AND s.expires_at > now()
        AND NOT EXISTS (SELECT 1 FROM revoked_sessions r WHERE r.session_id_hash = s.idp_session_hash AND r.revoked_at <= now())`;
    if (rows.length !== 1) return null;
    const { identity, created_at, expires_at, issuer, issuer_rules_sha256 } = rows[0];
    const current = this.rulesOf.get(issuer);
    if (current === undefined || current !== issuer_rules_sha256) return null;
    const approver = { ...identity, expiresAt: new Date(identity.expiresAt) };
    return { sessionIdHash: sha256Hex(sessionId), approver, csrfToken: csrfTokenOf(sessionId), createdAt: created_at, expiresAt: expires_at };
  }

  async signOut(session: ActiveSession): Promise<void> {
    await this.db.$executeRaw`UPDATE console_sessions SET revoked_at = now() WHERE session_id_hash = ${session.sessionIdHash} AND revoked_at IS NULL`;
  }

  csrfMatches(session: ActiveSession, header: string | undefined): boolean {
    if (!header) return false;
    const [a, b] = [Buffer.from(header), Buffer.from(session.csrfToken)];
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
