import type { VerifiedIdentity } from '@arvis/effect-context';
import type { TrustedIssuer } from '../../config/authorizer.config';
import { evaluateIssuerPolicy, identityOfClaims, KERNEL_PRINCIPAL_REFUSED } from '../../policy/verify-identity/issuer-policy';

export type IdTokenIdentity = { ok: true; identity: VerifiedIdentity } | { ok: false; detail: string };

/**
 * An ID token's claims, already verified by openid-client (signature, iss, aud = the console's
 * client id, nonce, exp), mapped through its issuer's claim mapping and tenant list as a bearer
 * token's are (ADR 0071). The service an approver acts through is the console's client: the
 * token's aud, which the mapping's service claim is replaced with.
 */
export function identityOfIdToken(iss: TrustedIssuer & { oidc: { clientId: string } }, claims: Record<string, unknown>, now: Date, clockSkewS: number): IdTokenIdentity {
  const policy = { tenants: iss.tenants, maxTokenAgeS: iss.maxTokenAgeS, claims: { ...iss.claims, service: 'azp' } };
  const judged = evaluateIssuerPolicy(policy, { header: {}, payload: { ...claims, azp: iss.oidc.clientId } }, { use: 'approval', now, clockSkewS });
  if (!judged.ok) return { ok: false, detail: judged.detail };
  const identity = identityOfClaims(judged.claims, claims, iss.issuer);
  return identity ? { ok: true, identity } : { ok: false, detail: KERNEL_PRINCIPAL_REFUSED };
}
