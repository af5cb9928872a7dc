import { generateKeyPairSync } from 'node:crypto';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { mintIdentityToken } from '@arvis/decision-client';
import { CallerTokenVerifier } from './caller-token.verifier';

const pair = () => {
  const p = generateKeyPairSync('ed25519');
  return { publicKey: p.publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKeyPem: p.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
};
const trusted = pair();
const stranger = pair();
const RESOURCE = 'https://mcp.example.com/mcp';
const verifier = new CallerTokenVerifier([{ issuer: 'idp', alg: 'EdDSA', publicKey: trusted.publicKey }], RESOURCE);
const claims = { principal: 'alice', tenant: 'acme', serviceId: 'agent-1', audience: RESOURCE };
const refusal = (token: string) => verifier.verifyAccessToken(token).then(() => 'accepted', (e: unknown) => (e instanceof InvalidTokenError ? e.message : `other: ${String(e)}`));

describe('the front door\'s check of a caller\'s token', () => {
  it('accepts a token of a configured issuer for this resource, and reports it for the SDK', async () => {
    const token = await mintIdentityToken({ issuer: 'idp', privateKeyPem: trusted.privateKeyPem }, claims);
    await expect(verifier.verifyAccessToken(token)).resolves.toMatchObject({ token, clientId: 'agent-1', resource: new URL(RESOURCE), extra: { issuer: 'idp', subject: 'alice' } });
  });

  it('refuses another audience, no audience, another issuer, a key that is not the issuer\'s, an expired token and a non-JWT', async () => {
    const sign = (over: object, key = trusted.privateKeyPem, issuer = 'idp', opts = {}) => mintIdentityToken({ issuer, privateKeyPem: key }, { ...claims, ...over }, opts);
    expect(await refusal(await sign({ audience: 'arvis-admin' }))).toMatch(/aud/);
    expect(await refusal(await sign({ audience: [RESOURCE.replace('mcp.', 'other.')] }))).toMatch(/aud/);
    expect(await refusal(await sign({ audience: undefined }))).toMatch(/aud/);
    expect(await refusal(await sign({}, stranger.privateKeyPem, 'elsewhere'))).toBe('issuer not trusted');
    expect(await refusal(await sign({}, stranger.privateKeyPem))).toMatch(/signature/);
    expect(await refusal(await sign({}, trusted.privateKeyPem, 'idp', { expiresInS: -60 }))).toMatch(/exp/);
    expect(await refusal('not-a-token')).toBe('not a JWT');
  });
});
