import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { buildEffectContext } from '@arvis/effect-context';
import type { Tx } from '@arvis/persistence';
import { MetricsRegistry } from '@arvis/runtime';
import { sha256Hex } from '@arvis/crypto';
import { AdmitDecisionService } from '../../pipeline/admit-decision/admit-decision.service';
import type { Authorized } from '../authorize-decision/authorization.types';
import { loadAuthorizerConfig } from '../../config/authorizer.config';
import { VerifyIdentityService } from './verify-identity.service';
import { VerifiedTokenCache } from './verified-token-cache';

// The verified-token cache (ADR 0047) saves the signature check and the claims parse of a token
// seen before; everything that depends on the use, the issuer's rules or current state is still
// judged at every use. Each case presents a token once to fill the cache, then again.
const issuerKey = generateKeyPairSync('ed25519');
const intentKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const pem = (k: KeyObject) => k.export({ type: 'spki', format: 'pem' }).toString();
const T = new Date('2026-12-01T12:00:00Z');
const at = (s: number) => new Date(T.getTime() + s * 1000);

const serviceWith = (entry: Record<string, unknown>, env: Record<string, string> = {}) => {
  const metrics = new MetricsRegistry();
  const config = loadAuthorizerConfig({
    DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec',
    INTENT_SIGNING_KEY: intentKey,
    TRUST_PROXY: 'false',
    JWT_CLOCK_SKEW_S: '0',
    TRUSTED_ISSUERS: JSON.stringify([{ issuer: 'https://idp.example', alg: 'EdDSA', tenants: ['acme'], ...entry }]),
    ...env,
  });
  return { identity: new VerifyIdentityService(config, metrics), metrics };
};
const local = (env: Record<string, string> = {}) =>
  serviceWith({ publicKey: pem(issuerKey.publicKey), audience: { decisions: ['arvis'], approvals: ['arvis-approvals'] } }, env);

async function lookups(metrics: MetricsRegistry): Promise<{ hit: number; miss: number }> {
  const values = (await metrics.getSingleMetric('arvis_identity_token_cache_lookups_total')!.get()).values;
  const of = (result: string) => values.find((v) => v.labels.result === result)?.value ?? 0;
  return { hit: of('hit'), miss: of('miss') };
}

const token = (claims: Record<string, unknown> = {}, opts: { key?: KeyObject; kid?: string; exp?: number } = {}) =>
  new SignJWT({ tenant: 'acme', azp: 'agent-svc', aud: 'arvis', sid: 'session-1', ...claims })
    .setProtectedHeader({ alg: 'EdDSA', ...(opts.kid ? { kid: opts.kid } : {}) })
    .setSubject('alice')
    .setIssuer('https://idp.example')
    .setIssuedAt(Math.floor(T.getTime() / 1000))
    .setExpirationTime(Math.floor(T.getTime() / 1000) + (opts.exp ?? 600))
    .sign(opts.key ?? issuerKey.privateKey);

describe('a token presented again is served from the verified-token cache', () => {
  it('verifies the signature once for a run of decisions that share one token, even presented at once', async () => {
    const { identity, metrics } = local();
    const t = await token();
    const results = await Promise.all(Array.from({ length: 10 }, () => identity.verify(t, T)));
    expect(results.every((r) => r.ok && r.identity.principal === 'alice' && r.stored.tokenSha256 === sha256Hex(t))).toBe(true);
    expect(await lookups(metrics)).toEqual({ hit: 9, miss: 1 });
  });

  it('refuses a cached token once its exp has passed, as a full verification does', async () => {
    const { identity, metrics } = local();
    const t = await token({}, { exp: 60 });
    expect(await identity.verify(t, at(59))).toMatchObject({ ok: true });
    expect(await identity.verify(t, at(60))).toEqual({ ok: false, reasonCode: 'identity_invalid', detail: 'token expired' });
    expect(await lookups(metrics)).toEqual({ hit: 0, miss: 2 });
  });

  it('still judges the audience at each use: a cached decision token is no approver token', async () => {
    const { identity, metrics } = local();
    const t = await token();
    expect(await identity.verify(t, T, 'decision')).toMatchObject({ ok: true });
    expect(await identity.verify(t, T, 'approval')).toMatchObject({ ok: false, reasonCode: 'identity_invalid', rule: 'audience_mismatch' });
    expect(await lookups(metrics)).toEqual({ hit: 1, miss: 1 });
  });

  it('still judges the issuer maximum token age by the clock of each use', async () => {
    const { identity, metrics } = serviceWith({ publicKey: pem(issuerKey.publicKey), maxTokenAgeS: 120 });
    const t = await token();
    expect(await identity.verify(t, at(100))).toMatchObject({ ok: true });
    expect(await identity.verify(t, at(121))).toMatchObject({ ok: false, rule: 'token_too_old' });
    expect(await lookups(metrics)).toEqual({ hit: 1, miss: 1 });
  });

  it('leaves revocation to admission: a hit whose session was revoked is refused there', async () => {
    const { identity, metrics } = local();
    const t = await token();
    await identity.verify(t, T);
    const hit = await identity.verify(t, T);
    if (!hit.ok) throw new Error(hit.detail);
    expect(await lookups(metrics)).toEqual({ hit: 1, miss: 1 });
    const authorized = {
      decision: { decisionId: 'd1', runId: 'run-1', processId: 'proc-1' },
      stored: hit.stored,
      resumed: false,
      effectContext: buildEffectContext(hit.identity, { processId: 'proc-1', runId: 'run-1' }),
    } as unknown as Authorized;
    // The slice's read (ADR 0049) found the session revoked.
    const { refused } = await new AdmitDecisionService(identity).admit([authorized], { now: T, revokedSessions: new Set([sha256Hex('session-1')]) });
    expect(refused).toEqual([expect.objectContaining({ reasonCode: 'identity_invalid', detail: 'at admission: the session was revoked' })]);
  });

  it('keeps at most IDENTITY_CACHE_MAX_ENTRIES tokens, the least recently used going first', async () => {
    const { identity, metrics } = local({ IDENTITY_CACHE_MAX_ENTRIES: '2' });
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => token({ n })));
    for (const t of [a, b, a, c]) await identity.verify(t, T); // c pushes out b, the least recently used
    expect(await lookups(metrics)).toEqual({ hit: 1, miss: 3 });
    await identity.verify(a, T);
    await identity.verify(b, T);
    expect(await lookups(metrics)).toEqual({ hit: 2, miss: 4 });
  });

  it('is off with IDENTITY_CACHE_MAX_ENTRIES=0', async () => {
    const { identity, metrics } = local({ IDENTITY_CACHE_MAX_ENTRIES: '0' });
    const t = await token();
    for (let i = 0; i < 3; i++) expect(await identity.verify(t, T)).toMatchObject({ ok: true });
    expect(await lookups(metrics)).toEqual({ hit: 0, miss: 3 });
  });
});

describe('a cached token of an issuer with a JWKS URL', () => {
  const keyA = generateKeyPairSync('ed25519');
  const keyB = generateKeyPairSync('ed25519');
  const jwk = (k: KeyObject, kid: string) => ({ ...k.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' });
  let published = [jwk(keyA.publicKey, 'a')];
  let server: Server;
  let uri: string;

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published })));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('is refused once its key is retired and the grace has passed, exactly as without the cache', async () => {
    published = [jwk(keyA.publicKey, 'a')];
    const { identity, metrics } = serviceWith({ jwksUri: uri, jwksCache: { maxAgeMs: 300, cooldownMs: 0 } });
    const now = new Date();
    const t = await new SignJWT({ tenant: 'acme', azp: 'agent-svc' }).setProtectedHeader({ alg: 'EdDSA', kid: 'a' }).setSubject('alice').setIssuer('https://idp.example').setExpirationTime('10m').sign(keyA.privateKey);
    expect(await identity.verify(t, now)).toMatchObject({ ok: true });
    expect(await identity.verify(t, now)).toMatchObject({ ok: true });
    expect(await lookups(metrics)).toEqual({ hit: 1, miss: 1 });
    published = [jwk(keyB.publicKey, 'b')];
    await new Promise((r) => setTimeout(r, 400)); // past the set's max age: the next use fetches it again
    const refused = await identity.verify(t, new Date());
    expect(refused).toMatchObject({ ok: false, reasonCode: 'identity_invalid', detail: expect.stringMatching(/^ERR_JWKS_NO_MATCHING_KEY:/) });
    expect(await lookups(metrics)).toEqual({ hit: 1, miss: 2 });
  });
});

describe('VerifiedTokenCache', () => {
  const verified = (exp: number, nbf?: number) => ({ header: { alg: 'EdDSA' }, payload: { exp, ...(nbf === undefined ? {} : { nbf }) }, issuer: 'i', key: 'k' });
  const nowS = Math.floor(T.getTime() / 1000);

  it('drops an entry once its exp is reached (with the skew), and keeps a failed verification out', async () => {
    const cache = new VerifiedTokenCache(10, 5);
    cache.remember('x', Promise.resolve(verified(nowS + 10)));
    cache.remember('y', Promise.resolve(undefined));
    expect(await cache.lookup('x', at(14))).toMatchObject({ payload: { exp: nowS + 10 } });
    expect(await cache.lookup('y', T)).toBeUndefined();
    expect(await cache.lookup('x', at(15))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not serve a token before its nbf', async () => {
    const cache = new VerifiedTokenCache(10, 0);
    cache.remember('x', Promise.resolve(verified(nowS + 100, nowS + 10)));
    expect(await cache.lookup('x', at(9))).toBeUndefined();
    expect(await cache.lookup('x', at(10))).toBeDefined();
  });
});
