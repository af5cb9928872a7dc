import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { Stack } from './support/stack';

// Principals are (issuer, subject) (ADR 0035): "alice" of one issuer is not "alice" of another.
// So the requester could try to approve their own action through a second issuer. An approver of
// another issuer is accepted only when both issuers map a person key (here the `email` claim)
// and the keys differ; otherwise the refusal is the typed `own_request`, and nothing changes.
const SECOND = 'https://second-idp.test';
const second = generateKeyPairSync('ed25519');

describe('approval by the same person through a second issuer', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  const sign = (key: KeyObject, iss: string, sub: string, claims: Record<string, unknown>) =>
    new SignJWT({ tenant: 'acme', azp: 'console', ...claims }).setProtectedHeader({ alg: 'EdDSA' }).setSubject(sub).setIssuer(iss).setIssuedAt().setExpirationTime('10m').sign(key);
  beforeAll(async () => {
    stack = await Stack.create('secondissuer');
    const [local] = JSON.parse(stack.env.appEnv.TRUSTED_ISSUERS) as Record<string, unknown>[];
    const person = { subject: 'sub', tenant: 'tenant', roles: 'roles', service: 'azp', person: 'email' };
    const trusted = [
      { ...local, claims: person },
      { issuer: SECOND, alg: 'EdDSA', tenants: ['acme'], publicKey: second.publicKey.export({ type: 'spki', format: 'pem' }), claims: person },
      { issuer: 'https://no-person.test', alg: 'EdDSA', tenants: ['acme'], publicKey: second.publicKey.export({ type: 'spki', format: 'pem' }) },
    ];
    authorizer = await stack.start('authorizer', 'authorizer', { env: { TRUSTED_ISSUERS: JSON.stringify(trusted), CONFIRMATION_POLL_MS: '200' } });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const decide = async (id: string, token: string) => {
    const res = await fetch(`http://127.0.0.1:${authorizer.apiPort}/confirmations/${id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    return [res.status, ((await res.json()) as { error?: string }).error ?? 'approved'];
  };

  it('refuses the requester through a second issuer (same person key, or none to tell), and takes another person', async () => {
    const localKey = createPrivateKey(stack.env.issuer.privateKeyPem);
    const requester = await sign(localKey, stack.env.issuer.issuer, 'alice', { email: 'alice@acme.example', roles: [] });
    const [d] = await h.decisions('second-issuer-run', 1, {
      decisionId: 'second:transfer', tool: 'ledger.transfer', riskScore: 0.2, identity: requester,
      payload: { from: 'acc-1', to: 'acc-2', amountMinor: 700, currency: 'EUR', reference: 'second-issuer' },
    });
    await h.client.send([d]);
    await h.waitUntil('the transfer to be parked', async () => (await h.query('SELECT 1 FROM confirmations WHERE decision_id = $1', [d.decisionId])).length === 1);
    const [{ confirmation_id: id }] = await h.query<{ confirmation_id: string }>('SELECT confirmation_id FROM confirmations WHERE decision_id = $1', [d.decisionId]);

    const approver = { roles: ['approver'] };
    const refusals = {
      sameIssuerSameSubject: await decide(id, await sign(localKey, stack.env.issuer.issuer, 'alice', { ...approver, email: 'alice@acme.example' })),
      secondIssuerSamePerson: await decide(id, await sign(second.privateKey, SECOND, 'a.smith', { ...approver, email: 'alice@acme.example' })),
      secondIssuerNoPersonKey: await decide(id, await sign(second.privateKey, SECOND, 'a.smith', approver)),
      issuerWithoutMapping: await decide(id, await sign(second.privateKey, 'https://no-person.test', 'bob', { ...approver, email: 'bob@acme.example' })),
      sameIssuerSecondAccount: await decide(id, await sign(localKey, stack.env.issuer.issuer, 'alice-admin', { ...approver, email: 'alice@acme.example' })),
    };
    expect(refusals).toEqual({
      sameIssuerSameSubject: [403, 'own_request'],
      secondIssuerSamePerson: [403, 'own_request'],
      secondIssuerNoPersonKey: [403, 'own_request'],
      issuerWithoutMapping: [403, 'own_request'],
      sameIssuerSecondAccount: [403, 'own_request'],
    });
    // No effect: still pending, no verdict journaled.
    expect(await h.query('SELECT status, decided_by FROM confirmations WHERE confirmation_id = $1', [id])).toEqual([{ status: 'pending', decided_by: null }]);
    expect((await h.query(`SELECT 1 FROM journal WHERE decision_id = $1 AND kind <> 'confirmation_pending'`, [d.decisionId])).length).toBe(0);

    // "alice" of the second issuer is another principal, and another person: she may approve.
    expect(await decide(id, await sign(second.privateKey, SECOND, 'alice', { ...approver, email: 'alice.other@acme.example' }))).toEqual([200, 'approved']);
    await h.waitUntil('the transfer to complete', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0]).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    expect(await h.query('SELECT decided_by, decided_by_issuer, requester_person FROM confirmations WHERE confirmation_id = $1', [id])).toEqual([
      { decided_by: 'alice', decided_by_issuer: SECOND, requester_person: 'alice@acme.example' },
    ]);
  });
});
