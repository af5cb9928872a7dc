import { commitment, sha256Hex } from '@arvis/crypto';

export const EFFECT_CONTEXT_FORMAT_VERSION = 1;
/** The runtime's own identity: never accepted as the principal of a user's effect. */
export const KERNEL_PRINCIPAL = '__kernel__';

/** The identity sealed into an effect: what the tool may act for, and nothing it could misuse. */
export interface AuthorizedEffectContext {
  readonly effectContextFormatVersion: 1;
  readonly principal: string;
  readonly tenant: string;
  readonly authenticationSource: string;
  readonly authenticationStrength: string;
  readonly serviceId: string;
  readonly sessionIdHash: string | null;
  readonly processId: string;
  readonly runId: string;
}

export interface VerifiedIdentity {
  principal: string;
  tenant: string;
  issuer: string;
  authenticationStrength: string;
  serviceId: string;
  sessionId: string | null;
  roles: readonly string[];
  /**
   * A key naming the person across issuers (an issuer's `claims.person` mapping, e.g. a verified
   * email); null when the issuer maps none. The principal itself is (issuer, principal).
   */
  person: string | null;
  expiresAt: Date;
  /** The token's `iat`, when it had one. */
  issuedAt: Date | null;
}

/** The one builder, used at authorization and again at admission, so the two can be compared. */
export function buildEffectContext(
  identity: VerifiedIdentity,
  bindings: { processId: string; runId: string },
): AuthorizedEffectContext {
  return Object.freeze({
    effectContextFormatVersion: EFFECT_CONTEXT_FORMAT_VERSION,
    principal: identity.principal,
    tenant: identity.tenant,
    authenticationSource: identity.issuer,
    authenticationStrength: identity.authenticationStrength,
    serviceId: identity.serviceId,
    sessionIdHash: identity.sessionId === null ? null : sha256Hex(identity.sessionId),
    processId: bindings.processId,
    runId: bindings.runId,
  });
}

export const effectContextCommitment = (ctx: AuthorizedEffectContext): string => commitment(ctx);

/** Field names whose values differ; empty when the two contexts are the same. */
export function diffEffectContext(a: AuthorizedEffectContext, b: AuthorizedEffectContext): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof AuthorizedEffectContext>;
  return [...keys].filter((k) => a[k] !== b[k]).sort();
}
