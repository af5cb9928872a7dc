import { generateKeyPairSync } from 'node:crypto';
import { sha256Hex } from '@arvis/crypto';
import { mintIdentityToken } from '@arvis/decision-client';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { Stack } from './support/stack';

// How long a parked decision stays valid (ADR 0035): by default its token's exp is enforced when
// it resumes. An issuer whose tokens live minutes can bind parked decisions to their session
// (`parkedDecisions: "session"`): then a decision resumes after its token expired, while the
// confirmation holds and the session is not revoked; a token without sid keeps its exp.
const SHORT = 'https://short-default.test';
const shortKey = generateKeyPairSync('ed25519');

describe('a parked decision and a token that expires while it waits', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('sessionbound');
    const [local] = JSON.parse(stack.env.appEnv.TRUSTED_ISSUERS) as Record<string, unknown>[];
    const trusted = [
      { ...local, parkedDecisions: 'session' },
      { issuer: SHORT, alg: 'EdDSA', tenants: ['acme'], publicKey: shortKey.publicKey.export({ type: 'spki', format: 'pem' }) },
    ];
    const env = { TRUSTED_ISSUERS: JSON.stringify(trusted), CONFIRMATION_POLL_MS: '200', JWT_CLOCK_SKEW_S: '0' };
    authorizer = await stack.start('authorizer', 'authorizer', { env });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('resumes it on its session where the issuer says so, and refuses it on the token expiry otherwise', async () => {
    const ttlS = 3;
    const bound = { issuer: stack.env.issuer.issuer, privateKeyPem: stack.env.issuer.privateKeyPem };
    const byDefault = { issuer: SHORT, privateKeyPem: shortKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    const mint = (issuer: typeof bound, sessionId?: string) =>
      mintIdentityToken(issuer, { principal: 'alice', tenant: 'acme', serviceId: 'agent-1', ...(sessionId ? { sessionId } : {}) }, { expiresInS: ttlS });
    const cases = {
      sessionBound: await mint(bound, 'sb-live'),
      sessionRevoked: await mint(bound, 'sb-revoked'),
      boundIssuerNoSid: await mint(bound),
      defaultIssuer: await mint(byDefault, 'sb-default'),
    };
    const decisions = await Promise.all(
      Object.entries(cases).map(async ([name, identity]) => {
        const [d] = await h.decisions('session-bound-run', 1, {
          decisionId: `sb:${name}`, causalId: name, tool: 'ledger.transfer', riskScore: 0.2, identity,
          payload: { from: 'acc-1', to: 'acc-2', amountMinor: 100, currency: 'EUR', reference: name },
        });
        return d;
      }),
    );
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    const parked = async () => h.query<{ decision_id: string; confirmation_id: string }>('SELECT decision_id, confirmation_id FROM confirmations WHERE decision_id = ANY($1)', [ids]);
    await h.waitUntil('all four to be parked', async () => (await parked()).length === 4);
    await h.query('INSERT INTO revoked_sessions (session_id_hash) VALUES ($1)', [sha256Hex('sb-revoked')]);
    await new Promise((r) => setTimeout(r, ttlS * 1000 + 1500)); // every token expires while parked

    // Carol approves each through the requester's issuer (another issuer could not tell her from alice without a person key).
    const carol = (issuer: typeof bound) => mintIdentityToken(issuer, { principal: 'carol', tenant: 'acme', serviceId: 'console', roles: ['approver'] });
    for (const { decision_id: decisionId, confirmation_id: id } of await parked()) {
      const approver = await carol(decisionId === 'sb:defaultIssuer' ? byDefault : bound);
      const res = await fetch(`http://127.0.0.1:${authorizer.apiPort}/confirmations/${id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${approver}` } });
      expect(res.status).toBe(200);
    }
    await h.waitUntil('all four to end', async () => (await h.finalRows(ids)).length === 4);
    const outcome = Object.fromEntries((await h.finalRows(ids)).map((r) => [r.decision_id.slice(3), `${r.kind} ${r.reason_code ?? r.effect_boundary}`]));
    expect(outcome).toEqual({
      sessionBound: 'tool_result effect_completed',
      sessionRevoked: 'admission_refusal identity_invalid',
      boundIssuerNoSid: 'authorization_refusal identity_invalid',
      defaultIssuer: 'authorization_refusal identity_invalid',
    });
    const [ledger] = await h.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_transfers WHERE tenant = 'acme'`);
    expect(ledger.n).toBe('1');
  });
});
