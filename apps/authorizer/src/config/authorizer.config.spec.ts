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

const base = { INTENT_SIGNING_KEY: pem('private') };
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
    ['a port out of range', { ...base, ...issuers({ issuer: 'i', alg: 'EdDSA', publicKey: pem('public') }), HTTP_PORT: '70000' }, 'HTTP_PORT'],
  ])('refuses to start with %s, naming the problem', (_case, env, expected) => {
    const found = problems(env as Record<string, string>);
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain(expected);
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
});
