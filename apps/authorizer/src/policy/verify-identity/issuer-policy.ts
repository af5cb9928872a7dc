import { KERNEL_PRINCIPAL, type VerifiedIdentity } from '@arvis/effect-context';
import type { ClaimMapping, ClaimPath } from '../../config/authorizer.config';

/** What the token is presented for: a decision's identity, an approver's or an operator's (admin API) bearer token. */
export type TokenUse = 'decision' | 'approval' | 'admin';

/** One issuer's rules, beyond its key: the policy part of a TRUSTED_ISSUERS entry. */
export interface IssuerPolicy {
  audience?: { decisions?: string[]; approvals?: string[]; admin?: string[] };
  tokenTypes?: string[];
  maxTokenAgeS?: number;
  tenants: string[];
  claims: ClaimMapping;
  /**
   * The production profile: an admin token needs the issuer's own `audience.admin`, even from an
   * issuer that sets no audiences at all (otherwise any of its tokens with the admin role, minted
   * for any purpose, would open the admin API).
   */
  adminAudienceRequired?: boolean;
}

/**
 * The rule a verified token broke. Every one is refused as `identity_invalid` (dead-lettered at
 * intake, journaled later); the rule leads the detail so a refusal says which one.
 */
export type IssuerRule = 'audience_mismatch' | 'token_type_not_accepted' | 'issued_at_missing' | 'token_too_old' | 'claims_missing' | 'tenant_not_allowed';

export interface MappedClaims {
  principal: string;
  tenant: string;
  serviceId: string;
  roles: string[];
  /** The cross-issuer person key, when the issuer maps `claims.person` and the token carries it. */
  person: string | null;
}

export type PolicyResult = { ok: true; claims: MappedClaims } | { ok: false; rule: IssuerRule; detail: string };

const refuse = (rule: IssuerRule, message: string): PolicyResult => ({ ok: false, rule, detail: `${rule}: ${message}` });

/** The claim at a path: a name taken literally, or a walk through nested objects. */
export function claimAt(payload: Record<string, unknown>, path: ClaimPath): unknown {
  if (typeof path === 'string') return payload[path];
  let at: unknown = payload;
  for (const name of path) at = at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>)[name] : undefined;
  return at;
}

const pathName = (path: ClaimPath) => (typeof path === 'string' ? path : path.join('.'));
const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
// RFC 7515 §4.1.9: typ is a media type, case-insensitive, `application/` may be left out.
const mediaType = (t: string) => t.toLowerCase().replace(/^application\//, '');

/**
 * The audiences a token for this use must carry one of; undefined: not checked. An admin token
 * needs the issuer's own `audience.admin`; an issuer that sets audiences for other uses but none
 * for admin accepts no admin token at all (ADR 0036), so a decision or approver token can never
 * serve as an operator's.
 */
function audienceFor(policy: IssuerPolicy, use: TokenUse): string[] | undefined {
  const a = policy.audience;
  if (use === 'decision') return a?.decisions;
  if (use === 'approval') return a?.approvals;
  if (a?.admin) return a.admin;
  return a?.decisions || a?.approvals || policy.adminAudienceRequired ? [] : undefined;
}

/**
 * Judges a token whose signature, issuer and expiry already verified against its issuer's
 * policy, and maps its claims. Pure: `now` and `clockSkewS` come from the caller.
 */
export function evaluateIssuerPolicy(
  policy: IssuerPolicy,
  token: { header: { typ?: string }; payload: Record<string, unknown> },
  context: { use: TokenUse; now: Date; clockSkewS: number },
): PolicyResult {
  const { header, payload } = token;
  const wanted = audienceFor(policy, context.use);
  if (wanted) {
    const aud = payload['aud'];
    const carried = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
    if (wanted.length === 0) return refuse('audience_mismatch', `${context.use} tokens need the issuer's audience.${context.use} (required in production), and this issuer sets none`);
    if (!carried.some((a) => wanted.includes(a))) {
      return refuse('audience_mismatch', `${context.use} tokens need aud ${JSON.stringify(wanted)}, got ${JSON.stringify(aud ?? null)}`);
    }
  }
  if (policy.tokenTypes && !policy.tokenTypes.some((t) => header.typ !== undefined && mediaType(t) === mediaType(header.typ))) {
    return refuse('token_type_not_accepted', `typ ${JSON.stringify(header.typ ?? null)} is not one of ${JSON.stringify(policy.tokenTypes)}`);
  }
  if (policy.maxTokenAgeS !== undefined) {
    const iat = payload['iat'];
    if (typeof iat !== 'number') return refuse('issued_at_missing', `the issuer sets a maximum token age of ${policy.maxTokenAgeS} s, and the token has no iat`);
    const ageS = context.now.getTime() / 1000 - iat;
    if (ageS > policy.maxTokenAgeS + context.clockSkewS) {
      return refuse('token_too_old', `issued ${Math.floor(ageS)} s ago, the issuer allows ${policy.maxTokenAgeS} s`);
    }
  }
  const { claims: map } = policy;
  const principal = str(claimAt(payload, map.subject));
  const tenant = str(claimAt(payload, map.tenant));
  const serviceId = str(claimAt(payload, map.service));
  if (!principal || !tenant || !serviceId) {
    return refuse('claims_missing', `token lacks ${[map.subject, map.tenant, map.service].map(pathName).join(', ')} (subject, tenant or service)`);
  }
  if (!policy.tenants.includes('*') && !policy.tenants.includes(tenant)) {
    return refuse('tenant_not_allowed', `the issuer may not speak for tenant ${JSON.stringify(tenant)}`);
  }
  const roles = claimAt(payload, map.roles);
  // As before: only an array counts, its non-strings dropped (a lone string grants nothing).
  const roleList = Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [];
  const person = map.person ? str(claimAt(payload, map.person)) : null;
  return { ok: true, claims: { principal, tenant, serviceId, roles: roleList, person } };
}

const nonEmpty = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);

/**
 * The identity a token's mapped claims name: the mapping's subject, tenant, service, roles and
 * person with the token's acr, sid, exp and iat. Null for the kernel principal, which no token may
 * speak for. One construction for bearer tokens and the console's ID tokens (ADR 0071).
 */
export function identityOfClaims(claims: MappedClaims, payload: Readonly<Record<string, unknown>>, issuer: string): VerifiedIdentity | null {
  const { principal, tenant, serviceId, roles, person } = claims;
  if (principal === KERNEL_PRINCIPAL) return null;
  return {
    principal,
    tenant,
    issuer,
    authenticationStrength: nonEmpty(payload['acr']) ?? 'unspecified',
    serviceId,
    sessionId: nonEmpty(payload['sid']),
    roles,
    person,
    expiresAt: new Date((payload['exp'] as number) * 1000),
    issuedAt: typeof payload['iat'] === 'number' ? new Date(payload['iat'] * 1000) : null,
  };
}

export const KERNEL_PRINCIPAL_REFUSED = 'the kernel principal is not a user identity';
