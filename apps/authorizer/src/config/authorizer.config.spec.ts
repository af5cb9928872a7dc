import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@arvis/config';
import { loadAuthorizerConfig } from './authorizer.config';

const dir = mkdtempSync(join(tmpdir(), 'arvis-config-'));
const pem = (k: 'public' | 'private') => {
  const pair = generateKeyPairSync('ed25519');
  return k === 'public' ? pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() : pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
};
const jwksPath = join(dir, 'jwks.json');
writeFileSync(jwksPath, JSON.stringify({ keys: [{ ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), kid: 'k1' }] }));
const notJwks = join(dir, 'not-jwks.json');
writeFileSync(notJwks, JSON.stringify({ keys: [] }));
const notJson = join(dir, 'not-json.json');
writeFileSync(notJson, 'keys: nope');

const base = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', INTENT_SIGNING_KEY: pem('private'), TRUST_PROXY: 'false' };
// Every entry names its tenants (required); specs about that rule pass their own list.
const issuers = (...list: object[]) => ({ TRUSTED_ISSUERS: JSON.stringify(list.map((i) => ({ tenants: ['*'], ...i }))) });

function problems(env: Record<string, string>): string[] {
  try {
    loadAuthorizerConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
  return [];
}

describe('authorizer configuration', () => {
  it('accepts an issuer with a public key, and one with a JWKS file read at start-up', () => {
    const config = loadAuthorizerConfig({
      ...base,
      ...issuers({ issuer: 'pem-idp', alg: 'EdDSA', publicKey: pem('public') }, { issuer: 'jwks-idp', alg: 'EdDSA', jwksFile: jwksPath }),
    });
    expect(config.identity.issuers.map((i) => [i.issuer, i.jwks?.keys.map((k) => k.kid) ?? null])).toEqual([
      ['pem-idp', null],
      ['jwks-idp', ['k1']],
    ]);
    expect(config.profile).toBe('production');
  });

  it.each([
    ['no trusted issuer', { ...base }, 'TRUSTED_ISSUERS: at least one trusted issuer is required'],
    ['no intent signing key', { ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public') }) }, 'INTENT_SIGNING_KEY'],
    ['TRUSTED_ISSUERS that is not JSON', { ...base, TRUSTED_ISSUERS: '[{' }, 'TRUSTED_ISSUERS'],
    ['a JWKS file that does not exist', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', jwksFile: join(dir, 'missing.json') }) }, `cannot read ${join(dir, 'missing.json')}`],
    ['a JWKS file that is not JSON', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', jwksFile: notJson }) }, `${notJson} is not JSON`],
    ['a JWKS file with no keys', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', jwksFile: notJwks }) }, 'the key set has no keys'],
    ['both a public key and a JWKS file', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public'), jwksFile: jwksPath }) }, 'exactly one of publicKey, jwksFile or jwksUri'],
    ['neither a public key nor a JWKS file', { ...base, ...issuers({ issuer: 'i', alg: 'ES256' }) }, 'exactly one of publicKey, jwksFile or jwksUri'],
    ['HS256 without ALLOW_HS256_IDENTITY', { ...base, ...issuers({ issuer: 'i', alg: 'HS256', secret: 's'.repeat(32) }) }, 'HS256 issuers need ALLOW_HS256_IDENTITY=true'],
    [
      'HS256 in the production profile',
      { ...base, ALLOW_HS256_IDENTITY: 'true', ...issuers({ issuer: 'i', alg: 'HS256', secret: 's'.repeat(32) }) },
      'HS256 is for local use only, never in production',
    ],
    ['an unknown key in an issuer', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public'), jwks: 'x' }) }, 'jwks'],
    [
      'an entry from before tenants were required',
      { ...base, TRUSTED_ISSUERS: JSON.stringify([{ issuer: 'i', alg: 'EdDSA', publicKey: pem('public') }]) },
      'TRUSTED_ISSUERS.0.tenants: required: the tenants this issuer may speak for, e.g. ["acme"], or ["*"]',
    ],
    ['"*" beside a tenant', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public'), tenants: ['*', 'acme'] }) }, '"*" stands alone'],
    ['a JWKS URL over http to another host', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', jwksUri: 'http://idp.example/jwks' }) }, 'jwksUri must be https in production'],
    ['a JWKS URL that is not http(s)', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', jwksUri: 'ftp://idp.example/jwks' }) }, 'TRUSTED_ISSUERS.0.jwksUri: must be an http(s) URL'],
    ['a JWKS cache without a JWKS URL', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public'), jwksCache: { maxAgeMs: 1000 } }) }, 'jwksCache applies to a jwksUri only'],
    ['an empty audience list', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public'), audience: { decisions: [] } }) }, 'TRUSTED_ISSUERS.0.audience.decisions'],
    ['a zero maximum token age', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public'), maxTokenAgeS: 0 }) }, 'TRUSTED_ISSUERS.0.maxTokenAgeS'],
    ['an unknown claim mapping', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public'), claims: { email: 'email' } }) }, 'email'],
    ['a port out of range', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public') }), HTTP_PORT: '70000' }, 'HTTP_PORT'],
    [
      'the management port on the API port',
      { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public') }), HTTP_PORT: '4000', MANAGEMENT_PORT: '4000' },
      'MANAGEMENT_PORT: must differ from HTTP_PORT',
    ],
    [
      'the console dev sign-in outside the development profile',
      { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public') }), CONSOLE_DEV_ISSUER: 'i', CONSOLE_DEV_ISSUER_KEY: pem('private') },
      'CONSOLE_DEV_ISSUER_KEY: the console dev sign-in is for the development profile only',
    ],
    [
      'a console dev sign-in for an issuer that is not trusted',
      { ...base, ARVIS_PROFILE: 'development', ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public') }), CONSOLE_DEV_ISSUER: 'other', CONSOLE_DEV_ISSUER_KEY: pem('private') },
      'CONSOLE_DEV_ISSUER must name a trusted EdDSA issuer',
    ],
  ])('refuses to start with %s, naming the problem', (_case, env, expected) => {
    const found = problems(env as Record<string, string>);
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain(expected);
  });

  it('accepts an issuer with a JWKS URL and its policy, filling the claim mapping with defaults', () => {
    const config = loadAuthorizerConfig({
      ...base,
      ...issuers({
        issuer: 'https://idp.example',
        alg: 'ES256',
        jwksUri: 'https://idp.example/.well-known/jwks.json',
        jwksCache: { maxAgeMs: 60_000 },
        audience: { decisions: 'arvis-decisions', approvals: ['arvis-approvals'], admin: 'arvis-admin' },
        tokenTypes: ['at+jwt'],
        maxTokenAgeS: 3600,
        tenants: ['acme'],
        claims: { roles: ['realm_access', 'roles'] },
      }),
    });
    expect(config.identity.issuers[0]).toMatchObject({
      jwksCache: { maxAgeMs: 60_000, cooldownMs: 30_000, timeoutMs: 5_000 },
      audience: { decisions: ['arvis-decisions'], approvals: ['arvis-approvals'], admin: ['arvis-admin'] },
      tenants: ['acme'],
      claims: { subject: 'sub', tenant: 'tenant', roles: ['realm_access', 'roles'], service: 'azp' },
    });
  });

  it('accepts HS256 for local use when explicitly allowed', () => {
    const config = loadAuthorizerConfig({
      ...base,
      ARVIS_PROFILE: 'development',
      ALLOW_HS256_IDENTITY: 'true',
      ...issuers({ issuer: 'i', alg: 'HS256', secret: 's'.repeat(32) }),
    });
    expect(config.identity.issuers[0].alg).toBe('HS256');
  });

  it("reads an OIDC client's secret from its file, and refuses an unreadable file, a wrong redirect URI, HS256 and plain http in production", () => {
    const secretFile = join(dir, 'console-secret');
    writeFileSync(secretFile, 'the-console-client-secret\n');
    const oidc = { clientId: 'arvis-console', clientSecretFile: secretFile, redirectUri: 'https://arvis.example/console/oidc/callback' };
    const idp = { issuer: 'https://idp.example', alg: 'RS256', jwksUri: 'https://idp.example/jwks' };
    const config = loadAuthorizerConfig({ ...base, ...issuers({ ...idp, oidc }) });
    expect(config.identity.issuers[0].oidc).toEqual({ clientId: 'arvis-console', clientSecret: 'the-console-client-secret', redirectUri: oidc.redirectUri, scope: 'openid' });
    expect(config.console.tokenSignIn).toBe(false);
    expect(problems({ ...base, ...issuers({ ...idp, oidc: { ...oidc, clientSecretFile: '/nonexistent/secret' } }) })).toEqual([
      expect.stringMatching(/^TRUSTED_ISSUERS\.0\.oidc\.clientSecretFile: cannot read \/nonexistent\/secret/),
    ]);
    expect(problems({ ...base, ...issuers({ ...idp, oidc: { ...oidc, clientSecret: 'inline' } }) })).toEqual([expect.stringContaining('TRUSTED_ISSUERS.0.oidc')]);
    expect(problems({ ...base, ...issuers({ ...idp, oidc: { ...oidc, redirectUri: 'https://arvis.example/elsewhere' } }) })).toEqual([
      'TRUSTED_ISSUERS.0.oidc.redirectUri: must end with /console/oidc/callback',
    ]);
    expect(problems({ ...base, ALLOW_HS256_IDENTITY: 'true', ARVIS_PROFILE: 'development', ...issuers({ issuer: 'https://idp.example', alg: 'HS256', secret: 's'.repeat(32), oidc }) })).toEqual([
      expect.stringContaining('oidc sign-in needs an asymmetric alg'),
    ]);
    const plain = { ...idp, issuer: 'http://idp.example', oidc: { ...oidc, redirectUri: 'http://arvis.example/console/oidc/callback' } };
    expect(problems({ ...base, ARVIS_PROFILE: 'production', ...issuers(plain) })).toEqual([
      expect.stringContaining('an oidc issuer must be https in production'),
      expect.stringContaining('oidc.redirectUri must be https in production'),
    ]);
  });

  it('keeps retention off by default and refuses a dedupe window shorter than the material window', () => {
    const key = issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public') });
    expect(loadAuthorizerConfig({ ...base, ...key }).retention).toMatchObject({ enabled: false, decisionsMs: 30 * 86_400_000, dedupeMs: 30 * 86_400_000, batch: 1000 });
    expect(problems({ ...base, ...key, RETENTION_DECISIONS_MS: '2000', RETENTION_DEDUPE_MS: '1000' })).toEqual([
      expect.stringMatching(/^RETENTION_DEDUPE_MS: must be at least RETENTION_DECISIONS_MS \(2000\)/),
    ]);
  });

  it('leases a notification for 60 s by default and refuses a lease that could lapse while its attempt still waits', () => {
    const key = issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public') });
    const notify = { NOTIFY_WEBHOOK_URL: 'https://hooks.example/arvis', NOTIFY_WEBHOOK_SECRET: 's'.repeat(32), CONSOLE_PUBLIC_URL: 'https://ops.example/console' };
    expect(loadAuthorizerConfig({ ...base, ...key, ...notify }).notify).toMatchObject({ leaseMs: 60_000, timeoutMs: 5000 });
    expect(problems({ ...base, ...key, ...notify, NOTIFY_LEASE_MS: '5000', NOTIFY_TIMEOUT_MS: '5000' })).toEqual([
      expect.stringMatching(/^NOTIFY_LEASE_MS: must be longer than NOTIFY_TIMEOUT_MS/),
    ]);
  });
});
