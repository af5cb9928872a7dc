import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { loadAuthorizerConfig } from '../../config/authorizer.config';
import { VerifyIdentityService } from './verify-identity.service';

// An identity provider that publishes a JWKS with two keys (the old one still valid during a
// rotation): tokens are matched to a key by their kid.
const oldKey = generateKeyPairSync('ed25519');
const newKey = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const jwk = (k: KeyObject, kid: string) => ({ ...k.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' });
const dir = mkdtempSync(join(tmpdir(), 'arvis-jwks-'));
const jwksFile = join(dir, 'jwks.json');
writeFileSync(jwksFile, JSON.stringify({ keys: [jwk(oldKey.publicKey, 'key-2025'), jwk(newKey.publicKey, 'key-2026')] }));

const config = loadAuthorizerConfig({
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec',
  INTENT_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  TRUST_PROXY: 'false',
  TRUSTED_ISSUERS: JSON.stringify([{ issuer: 'https://idp.example', alg: 'EdDSA', jwksFile, tenants: ['acme'] }]),
});

const token = (key: KeyObject, kid: string | undefined, claims: Record<string, unknown> = {}) =>
  new SignJWT({ tenant: 'acme', azp: 'agent-svc', ...claims })
    .setProtectedHeader({ alg: 'EdDSA', ...(kid ? { kid } : {}) })
    .setSubject('alice')
    .setIssuer('https://idp.example')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);

describe('identity from an issuer that publishes a JWKS', () => {
  const identity = new VerifyIdentityService(config);

  it('accepts tokens signed with either key of the set, picked by kid', async () => {
    for (const [key, kid] of [[oldKey.privateKey, 'key-2025'], [newKey.privateKey, 'key-2026']] as const) {
      const result = await identity.verify(await token(key, kid));
      expect(result).toMatchObject({ ok: true, identity: { principal: 'alice', tenant: 'acme', serviceId: 'agent-svc', issuer: 'https://idp.example' } });
    }
  });

  it.each([
    ['a kid the set does not hold', () => token(newKey.privateKey, 'key-2027'), 'ERR_JWKS_NO_MATCHING_KEY'],
    ['a known kid over a signature by another key', () => token(stranger.privateKey, 'key-2026'), 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'],
    ['no kid, when the set holds two keys', () => token(newKey.privateKey, undefined), 'ERR_JWKS_MULTIPLE_MATCHING_KEYS'],
  ])('refuses %s with identity_invalid', async (_case, make, code) => {
    const result = await identity.verify(await make());
    expect(result).toMatchObject({ ok: false, reasonCode: 'identity_invalid' });
    expect(!result.ok && result.detail).toMatch(new RegExp(`^${code}:`));
  });
});

describe('identity from an issuer that signs with RS256 (hosted providers)', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const identity = new VerifyIdentityService(
    loadAuthorizerConfig({
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec',
      INTENT_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      TRUST_PROXY: 'false',
      TRUSTED_ISSUERS: JSON.stringify([
        { issuer: 'https://rs.example', alg: 'RS256', publicKey: rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString(), tenants: ['acme'] },
      ]),
    }),
  );
  const signed = (alg: 'RS256' | 'EdDSA', key: KeyObject) =>
    new SignJWT({ tenant: 'acme', azp: 'agent-svc' }).setProtectedHeader({ alg }).setSubject('alice').setIssuer('https://rs.example').setExpirationTime('10m').sign(key);

  it('accepts RS256 from it, and no other alg', async () => {
    expect(await identity.verify(await signed('RS256', rsa.privateKey))).toMatchObject({ ok: true, identity: { principal: 'alice' } });
    expect(await identity.verify(await signed('EdDSA', stranger.privateKey))).toMatchObject({ ok: false, detail: expect.stringMatching(/^ERR_JOSE_ALG_NOT_ALLOWED/) });
  });
});
