import { TrustedIssuer } from '../../config/trusted-issuers';
import { identityOfIdToken } from './id-token-identity';

const now = new Date('2026-01-01T00:00:00Z');
const iat = now.getTime() / 1000;
const entry = (extra: Record<string, unknown> = {}) =>
  ({
    ...TrustedIssuer.parse({
      issuer: 'https://idp.example',
      alg: 'RS256',
      jwksUri: 'https://idp.example/jwks',
      tenants: ['acme'],
      claims: { tenant: ['org', 'id'], roles: 'groups', person: 'email' },
      ...extra,
    }),
    oidc: { clientId: 'arvis-console', clientSecret: 's', redirectUri: 'https://arvis.example/console/oidc/callback', scope: 'openid' },
  }) as TrustedIssuer & { oidc: { clientId: string } };
const claims = { iss: 'https://idp.example', sub: 'carol', aud: 'arvis-console', iat, exp: iat + 600, sid: 's-1', acr: 'mfa', org: { id: 'acme' }, groups: ['approver'], email: 'carol@acme.example' };

describe("an ID token's claims, mapped through its issuer's entry", () => {
  it('maps tenant, roles and person by the claim mapping; the service is the console client', () => {
    expect(identityOfIdToken(entry(), claims, now, 30)).toEqual({
      ok: true,
      identity: {
        principal: 'carol',
        tenant: 'acme',
        issuer: 'https://idp.example',
        authenticationStrength: 'mfa',
        serviceId: 'arvis-console',
        sessionId: 's-1',
        roles: ['approver'],
        person: 'carol@acme.example',
        expiresAt: new Date((iat + 600) * 1000),
        issuedAt: now,
      },
    });
  });

  it("refuses a tenant the issuer may not speak for, missing claims and a token older than the issuer's maximum age", () => {
    expect(identityOfIdToken(entry(), { ...claims, org: { id: 'globex' } }, now, 30)).toEqual({ ok: false, detail: expect.stringMatching(/^tenant_not_allowed/) });
    expect(identityOfIdToken(entry(), { ...claims, org: undefined }, now, 30)).toEqual({ ok: false, detail: expect.stringMatching(/^claims_missing/) });
    expect(identityOfIdToken(entry({ maxTokenAgeS: 60 }), { ...claims, iat: iat - 600 }, now, 30)).toEqual({ ok: false, detail: expect.stringMatching(/^token_too_old/) });
  });
});
