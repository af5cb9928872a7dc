import { commitment } from '@arvis/crypto';
import type { VerifiedIdentity } from '@arvis/effect-context';
import type { TrustedIssuer } from '../../config/authorizer.config';

/**
 * What the system keeps of a decision's identity instead of the token (ADR 0035): the claims as
 * verified at intake, the token's SHA-256 (to match it with the sender's records and the DLQ), and
 * a fingerprint of the issuer's rules and keys at that time. Retries and resumed confirmations
 * re-check these against database time; the token itself is never stored.
 */
export interface StoredIdentity {
  storedIdentityVersion: 1;
  tokenSha256: string;
  rulesSha256: string;
  issuer: string;
  principal: string;
  tenant: string;
  serviceId: string;
  authenticationStrength: string;
  sessionId: string | null;
  roles: string[];
  person: string | null;
  expiresAt: string;
  issuedAt: string | null;
}

/** What the re-check needs of the issuer's current entry; undefined when it is no longer trusted. */
export interface IssuerNow {
  rulesSha256: string;
  maxTokenAgeS?: number;
  parkedDecisions: 'token' | 'session';
}

export type Recheck = { ok: true } | { ok: false; detail: string };

/**
 * The issuer entry's rules and keys, as a fingerprint: a stored identity is used again only while
 * the entry is the same. Transport settings (jwksCache) are left out, and so is an HS256 secret
 * (a hash of a shared secret is not kept at rest; HS256 is for local use only).
 */
export function issuerRulesSha256(iss: TrustedIssuer): string {
  const { issuer, alg, publicKey, jwks, jwksUri, audience, tokenTypes, maxTokenAgeS, tenants, claims, parkedDecisions } = iss;
  const rules = { issuer, alg, publicKey, jwks, jwksUri, audience, tokenTypes, maxTokenAgeS, tenants, claims, parkedDecisions };
  return commitment(JSON.parse(JSON.stringify(rules)) as Record<string, unknown>);
}

/** `tokenSha256`: hex of the token's UTF-8 bytes, computed once by the verifier (its cache key too). */
export function storeIdentity(identity: VerifiedIdentity, tokenSha256: string, rulesSha256: string): StoredIdentity {
  return {
    storedIdentityVersion: 1,
    tokenSha256,
    rulesSha256,
    issuer: identity.issuer,
    principal: identity.principal,
    tenant: identity.tenant,
    serviceId: identity.serviceId,
    authenticationStrength: identity.authenticationStrength,
    sessionId: identity.sessionId,
    roles: [...identity.roles],
    person: identity.person,
    expiresAt: identity.expiresAt.toISOString(),
    issuedAt: identity.issuedAt?.toISOString() ?? null,
  };
}

export function restoreIdentity(s: StoredIdentity): VerifiedIdentity {
  return {
    principal: s.principal,
    tenant: s.tenant,
    issuer: s.issuer,
    authenticationStrength: s.authenticationStrength,
    serviceId: s.serviceId,
    sessionId: s.sessionId,
    roles: s.roles,
    person: s.person,
    expiresAt: new Date(s.expiresAt),
    issuedAt: s.issuedAt === null ? null : new Date(s.issuedAt),
  };
}

/** A stored identity read back from the inbox (jsonb); null for anything else (a row from before ADR 0035). */
export function parseStoredIdentity(value: unknown): StoredIdentity | null {
  if (value === null || typeof value !== 'object') return null;
  const s = value as Partial<StoredIdentity>;
  return s.storedIdentityVersion === 1 && typeof s.tokenSha256 === 'string' && typeof s.issuer === 'string' ? (s as StoredIdentity) : null;
}

/**
 * The stored claims judged again, by `now` (database time): the issuer still trusted with the
 * same rules and keys, then the token's expiry and maximum age as the issuer's policy says.
 * A resumed confirmation of an issuer with `parkedDecisions: "session"` and a token with a `sid`
 * is bound to its session instead (revocation is checked at admission) for the confirmation's
 * lifetime, which the confirmation itself enforces. Session revocation is admission's check.
 */
export function recheckStoredIdentity(s: StoredIdentity, issuer: IssuerNow | undefined, context: { now: Date; clockSkewS: number; resumed: boolean }): Recheck {
  if (!issuer) return { ok: false, detail: `issuer ${JSON.stringify(s.issuer)} is not trusted` };
  if (issuer.rulesSha256 !== s.rulesSha256) {
    return { ok: false, detail: `issuer_rules_changed: the rules or keys of issuer ${JSON.stringify(s.issuer)} changed since the token was verified` };
  }
  if (context.resumed && issuer.parkedDecisions === 'session' && s.sessionId !== null) return { ok: true };
  const skewMs = context.clockSkewS * 1000;
  if (new Date(s.expiresAt).getTime() + skewMs <= context.now.getTime()) return { ok: false, detail: 'token expired' };
  if (issuer.maxTokenAgeS !== undefined) {
    if (s.issuedAt === null) return { ok: false, detail: `issued_at_missing: the issuer sets a maximum token age of ${issuer.maxTokenAgeS} s, and the token had no iat` };
    const ageS = (context.now.getTime() - new Date(s.issuedAt).getTime()) / 1000;
    if (ageS > issuer.maxTokenAgeS + context.clockSkewS) {
      return { ok: false, detail: `token_too_old: issued ${Math.floor(ageS)} s ago, the issuer allows ${issuer.maxTokenAgeS} s` };
    }
  }
  return { ok: true };
}
