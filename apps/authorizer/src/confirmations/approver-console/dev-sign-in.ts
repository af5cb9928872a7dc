import { importPKCS8, SignJWT } from 'jose';
import type { AuthorizerConfig } from '../../config/authorizer.config';

export const DEV_APPROVER = 'dev-approver';

/**
 * Development profile only (the config refuses it elsewhere): a token for a dev approver, signed
 * with a trusted issuer's local key, carrying the approvals audience when the issuer requires one.
 * It then goes through the same sign-in as a pasted token.
 */
export async function mintDevApproverToken(config: AuthorizerConfig, now = new Date()): Promise<string> {
  const dev = config.console.devSignIn;
  if (!dev) throw new Error('the dev sign-in is not configured');
  const issuer = config.identity.issuers.find((i) => i.issuer === dev.issuer);
  const aud = issuer?.audience?.approvals?.[0];
  const iat = Math.floor(now.getTime() / 1000);
  const jwt = new SignJWT({ tenant: dev.tenant, roles: ['approver'], azp: 'arvis-console-dev', acr: 'dev' })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
    .setSubject(DEV_APPROVER)
    .setIssuer(dev.issuer)
    .setIssuedAt(iat)
    .setExpirationTime(iat + Math.ceil(config.console.sessionTtlMs / 1000));
  if (aud) jwt.setAudience(aud);
  return jwt.sign(await importPKCS8(dev.privateKey, 'EdDSA'));
}
