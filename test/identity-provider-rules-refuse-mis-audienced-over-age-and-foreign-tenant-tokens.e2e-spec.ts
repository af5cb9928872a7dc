import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { Stack } from './support/stack';

// An identity provider as deployments have one: its key set published at a URL and rotated, and
// its own rules in TRUSTED_ISSUERS (the audience for decisions and for approvals, the token
// types, a maximum age, the tenants it may speak for). A token breaking a rule is refused at
// intake as identity_invalid, the rule named in the dead letter's detail, and nothing happens.
const ISSUER = 'https://idp.remote.test';
const GRACE_MS = 2000;
const keyA = generateKeyPairSync('ed25519');
const keyB = generateKeyPairSync('ed25519');
// An issuer that sets no audiences at all: in production it must not open the admin API.
const PLAIN_ISSUER = 'https://idp.no-audiences.test';
const plainKey = generateKeyPairSync('ed25519');
const jwk = (k: KeyObject, kid: string) => ({ ...k.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' });

type Claims = { aud?: string; tenant?: string; roles?: string[]; iatAgoS?: number; typ?: string };
const token = (key: KeyObject, kid: string, c: Claims = {}) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tenant: c.tenant ?? 'acme', azp: 'agent-1', roles: c.roles ?? [], aud: c.aud ?? 'arvis-decisions' })
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: c.typ ?? 'at+jwt' })
    .setSubject('alice')
    .setIssuer(ISSUER)
    .setIssuedAt(now - (c.iatAgoS ?? 0))
    .setExpirationTime(now + 600)
    .sign(key);
};

describe('identity provider rules: a rotating JWKS URL, audiences, token types, age and tenants', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  let jwks: Server;
  let served: object = { keys: [jwk(keyA.publicKey, 'a')] };
  beforeAll(async () => {
    jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served)));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const issuer = {
      issuer: ISSUER,
      alg: 'EdDSA',
      jwksUri: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
      jwksCache: { maxAgeMs: GRACE_MS, cooldownMs: 100 },
      audience: { decisions: 'arvis-decisions', approvals: 'arvis-approvals' },
      tokenTypes: ['at+jwt'],
      maxTokenAgeS: 120,
      tenants: ['acme'],
    };
    stack = await Stack.create('idp');
    const plain = { issuer: PLAIN_ISSUER, alg: 'EdDSA', publicKey: plainKey.publicKey.export({ format: 'pem', type: 'spki' }), tenants: ['acme'] };
    const trusted = [...(JSON.parse(stack.env.appEnv.TRUSTED_ISSUERS) as object[]), issuer, plain];
    authorizer = await stack.start('authorizer', 'authorizer', { env: { TRUSTED_ISSUERS: JSON.stringify(trusted) } });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    jwks?.close();
  });

  const send = async (id: string, identity: string) => {
    const [d] = await h.decisions(`idp-${id}`, 1, { decisionId: `idp:${id}`, identity });
    await h.client.send([d]);
    return d.decisionId;
  };
  const completed = async (decisionId: string) => {
    await h.waitUntil(`${decisionId} to end`, async () => (await h.finalRows([decisionId])).length === 1);
    return (await h.finalRows([decisionId]))[0];
  };
  const deadLettered = async (ids: string[]) => {
    await h.waitUntil('the dead letters', () => h.journal.deadLettersFor(ids).size === ids.length, 30_000);
    const letters = h.journal.deadLettersFor(ids);
    return Object.fromEntries(ids.map((id) => [id, `${letters.get(id)!.reasonCode} ${letters.get(id)!.detail}`]));
  };
  // No inbox row, no journal entry, no intent: the refused decision left no trace but its dead letter.
  const traces = async (ids: string[]) =>
    (
      await h.query<{ n: string }>(
        `SELECT (SELECT count(*) FROM decision_inbox WHERE decision_id = ANY($1)) + (SELECT count(*) FROM journal WHERE decision_id = ANY($1))
              + (SELECT count(*) FROM intents WHERE decision_id = ANY($1)) AS n`,
        [ids],
      )
    )[0].n;

  it('follows a key rotation at the JWKS URL without a restart, and refuses the retired key once the grace has passed', async () => {
    expect(await completed(await send('key-a', await token(keyA.privateKey, 'a')))).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    // The provider publishes B beside A: B's unknown kid makes the authorizer fetch the set again
    // (at most once per cooldown), long before the cached set ages out.
    served = { keys: [jwk(keyA.publicKey, 'a'), jwk(keyB.publicKey, 'b')] };
    expect(await completed(await send('key-b', await token(keyB.privateKey, 'b')))).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    // Then retires A. The cached set still holds A; only its age (the grace) makes it go.
    served = { keys: [jwk(keyB.publicKey, 'b')] };
    const retiredAt = Date.now();
    await new Promise((r) => setTimeout(r, Math.max(0, retiredAt + GRACE_MS + 200 - Date.now())));
    const retired = await send('key-a-retired', await token(keyA.privateKey, 'a'));
    expect(await deadLettered([retired])).toEqual({ [retired]: expect.stringMatching(/^identity_invalid ERR_JWKS_NO_MATCHING_KEY: /) });
    expect(await traces([retired])).toBe('0');
    expect(await completed(await send('key-b-again', await token(keyB.privateKey, 'b')))).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    expect(authorizer.child.exitCode).toBeNull();
  });

  it('refuses a token for another audience, an over-age token, a wrong typ and a foreign tenant, each naming its rule, with no effect', async () => {
    const ids = {
      audience: await send('other-audience', await token(keyB.privateKey, 'b', { aud: 'https://api.other.example' })),
      age: await send('over-age', await token(keyB.privateKey, 'b', { iatAgoS: 3600 })),
      typ: await send('wrong-typ', await token(keyB.privateKey, 'b', { typ: 'JWT' })),
      tenant: await send('foreign-tenant', await token(keyB.privateKey, 'b', { tenant: 'globex' })),
    };
    const letters = await deadLettered(Object.values(ids));
    expect(letters).toEqual({
      [ids.audience]: expect.stringMatching(/^identity_invalid audience_mismatch: decision tokens need aud \["arvis-decisions"\]/),
      [ids.age]: expect.stringMatching(/^identity_invalid token_too_old: issued 36\d\d s ago, the issuer allows 120 s$/),
      [ids.typ]: 'identity_invalid token_type_not_accepted: typ "JWT" is not one of ["at+jwt"]',
      [ids.tenant]: 'identity_invalid tenant_not_allowed: the issuer may not speak for tenant "globex"',
    });
    expect(await traces(Object.values(ids))).toBe('0');
  });

  it("takes approvers' tokens only for the approvals audience", async () => {
    const api = async (aud: string) =>
      (
        await fetch(`http://127.0.0.1:${authorizer.apiPort}/confirmations`, {
          headers: { authorization: `Bearer ${await token(keyB.privateKey, 'b', { aud, roles: ['approver'] })}` },
        })
      ).status;
    expect({ decisionsAudience: await api('arvis-decisions'), approvalsAudience: await api('arvis-approvals') }).toEqual({
      decisionsAudience: 401,
      approvalsAudience: 200,
    });
  });

  it("takes no admin token in production from an issuer without an admin audience, even one that sets no audiences", async () => {
    const now = Math.floor(Date.now() / 1000);
    const operator = await new SignJWT({ tenant: 'acme', azp: 'ops', roles: ['admin'] })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setSubject('olga')
      .setIssuer(PLAIN_ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(plainKey.privateKey);
    // Before, any admin-role token of such an issuer, minted for whatever purpose, answered 200.
    const res = await fetch(`http://127.0.0.1:${authorizer.apiPort}/admin/store`, { headers: { authorization: `Bearer ${operator}` } });
    expect([res.status, await res.json()]).toEqual([401, expect.objectContaining({ error: 'unauthenticated', message: expect.stringContaining("admin tokens need the issuer's audience.admin") })]);
  });
});
