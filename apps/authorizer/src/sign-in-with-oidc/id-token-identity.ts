import { KERNEL_PRINCIPAL, type VerifiedIdentity } from '@arvis/effect-context';
import type { TrustedIssuer } from '../config/authorizer.config';
import { evaluateIssuerPolicy } from '../verify-identity/issuer-policy';

export type IdTokenIdentity = { ok: true; identity: VerifiedIdentity } | { ok: false; detail: string };

const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);

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
  const { principal, tenant, serviceId, roles, person } = judged.claims;
  if (principal === KERNEL_PRINCIPAL) return { ok: false, detail: 'the kernel principal is not a user identity' };
  return {
    ok: true,
    identity: {
      principal,
      tenant,
      issuer: iss.issuer,
      authenticationStrength: str(claims['acr']) ?? 'unspecified',
      serviceId,
      sessionId: str(claims['sid']),
      roles,
      person,
      expiresAt: new Date((claims['exp'] as number) * 1000),
      issuedAt: typeof claims['iat'] === 'number' ? new Date(claims['iat'] * 1000) : null,
    },
  };
}
