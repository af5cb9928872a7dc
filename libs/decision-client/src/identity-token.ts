import { importPKCS8, SignJWT } from 'jose';

export interface IdentityClaims {
  principal: string;
  tenant: string;
  serviceId: string;
  sessionId?: string;
  roles?: string[];
  acr?: string;
  /** `aud`: one audience or several (an issuer that sets `audience` checks it per use). */
  audience?: string | string[];
  /** The header's `typ` (default `JWT`): an issuer with `tokenTypes` accepts only those, e.g. `at+jwt`. */
  type?: string;
}

/**
 * Signs an identity JWT the way a trusted issuer would (EdDSA), for the demo and the tests:
 * `audience` becomes `aud` (the issuer's `audience.decisions` for a decision, and for reading its
 * result by the API) and `type` the header's `typ`.
 */
export async function mintIdentityToken(
  issuer: { issuer: string; privateKeyPem: string },
  claims: IdentityClaims,
  opts: { expiresInS?: number; now?: Date } = {},
): Promise<string> {
  const key = await importPKCS8(issuer.privateKeyPem, 'EdDSA');
  const iat = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  return new SignJWT({
    tenant: claims.tenant,
    azp: claims.serviceId,
    acr: claims.acr ?? 'mfa',
    roles: claims.roles ?? [],
    ...(claims.sessionId ? { sid: claims.sessionId } : {}),
    ...(claims.audience !== undefined ? { aud: claims.audience } : {}),
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: claims.type ?? 'JWT' })
    .setSubject(claims.principal)
    .setIssuer(issuer.issuer)
    .setIssuedAt(iat)
    .setExpirationTime(iat + (opts.expiresInS ?? 600))
    .sign(key);
}
