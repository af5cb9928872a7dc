import { generateKeyPairSync } from 'node:crypto';
import { loadAuthorizerConfig } from '../../config/authorizer.config';
import { VerifyIdentityService } from '../../policy/verify-identity/verify-identity.service';
import { DEV_APPROVER, mintDevApproverToken } from './dev-sign-in';

describe('the console dev sign-in (development profile)', () => {
  it("mints a token the approver API's own check accepts: a dev approver of the configured tenant, with the approvals audience", async () => {
    const pair = generateKeyPairSync('ed25519');
    const issuer = {
      issuer: 'https://idp.local.test',
      alg: 'EdDSA',
      publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      tenants: ['acme'],
      audience: { approvals: 'arvis-approvals' },
    };
    const config = loadAuthorizerConfig({
      ARVIS_PROFILE: 'development',
      INTENT_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      TRUSTED_ISSUERS: JSON.stringify([issuer]),
      CONSOLE_DEV_ISSUER: issuer.issuer,
      CONSOLE_DEV_ISSUER_KEY: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    expect(config.console.secureCookie).toBe(false);
    const verified = await new VerifyIdentityService(config).verify(await mintDevApproverToken(config), new Date(), 'approval');
    expect(verified.ok && { principal: verified.identity.principal, tenant: verified.identity.tenant, roles: verified.identity.roles }).toEqual({
      principal: DEV_APPROVER,
      tenant: 'acme',
      roles: ['approver'],
    });
  });
});
