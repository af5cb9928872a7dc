import { Client } from 'pg';
import { generateEd25519KeyPair } from '@arvis/effect-context';
import { mintIdentityToken, type DecisionInput } from '@arvis/decision-client';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// Every policy refusal through the running authorizer (production profile): one final
// authorization_refusal with its reason code, and no intent, capability use or effect.
describe('policy refusals carry their reason codes', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('policy');
    // The host's own gate data: acme has consent and egress policies, "nogates" has none,
    // "noegress" has consent data but no egress policy, "walled" allows another provider only.
    const db = new Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    await db.query(`INSERT INTO consent_grants (tenant, principal, consent_key) VALUES
      ('acme', 'alice', 'email'), ('noegress', 'alice', 'email'), ('walled', 'alice', 'email')`);
    await db.query(`INSERT INTO egress_policies (tenant, provider) VALUES ('acme', 'smtp-relay'), ('walled', 'fax-gateway')`);
    await db.end();
    await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('refuses each case with exactly its reason code, and runs what policy allows', async () => {
    const alice = await h.token({ tenant: 'acme', principal: 'alice' });
    const mail = { to: 'bob@example.com', subject: 'hi', body: 'hello' };
    const base = { runId: 'policy-run', riskScore: 0.1, identity: alice };
    const foreignIssuer = await mintIdentityToken(
      { issuer: h.env.issuer.issuer, privateKeyPem: generateEd25519KeyPair().privateKeyPem },
      { principal: 'alice', tenant: 'acme', serviceId: 'agent-1' },
    );
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ sub: 'alice', tenant: 'acme', azp: 'agent-1', iss: h.env.issuer.issuer, exp: 9999999999 }),
    ).toString('base64url')}.x`;
    const cases: [DecisionInput, string][] = [
      [{ ...base, decisionId: 'p:expired', causalId: 'c1', tool: 'notes.append', payload: { text: 'x' }, identity: await h.token({}, -120) }, 'identity_invalid'],
      [{ ...base, decisionId: 'p:wrong-key', causalId: 'c2', tool: 'notes.append', payload: { text: 'x' }, identity: foreignIssuer }, 'identity_invalid'],
      [{ ...base, decisionId: 'p:unsigned', causalId: 'c3', tool: 'notes.append', payload: { text: 'x' }, identity: unsigned }, 'identity_invalid'],
      [{ ...base, decisionId: 'p:kernel', causalId: 'c4', tool: 'notes.append', payload: { text: 'x' }, identity: await h.token({ principal: '__kernel__' }) }, 'authenticated_principal_required'],
      [{ ...base, decisionId: 'p:unknown', causalId: 'c5', tool: 'shell.exec', payload: { cmd: 'ls' } }, 'unknown_tool'],
      [{ ...base, decisionId: 'p:schema', causalId: 'c6', tool: 'notes.append', payload: { text: 42 } }, 'input_schema_violation'],
      [{ ...base, decisionId: 'p:risk', causalId: 'c7', tool: 'notes.append', payload: { text: 'x' }, riskScore: 0.9 }, 'risk_exceeded'],
      [{ ...base, decisionId: 'p:consent', causalId: 'c8', tool: 'mail.send', payload: mail, identity: await h.token({ tenant: 'acme', principal: 'bob' }) }, 'consent_required'],
      [{ ...base, decisionId: 'p:consent-gate', causalId: 'c9', tool: 'mail.send', payload: mail, identity: await h.token({ tenant: 'nogates' }) }, 'consent_gate_missing'],
      [{ ...base, decisionId: 'p:egress', causalId: 'c10', tool: 'mail.send', payload: mail, identity: await h.token({ tenant: 'walled' }) }, 'egress_denied'],
      [{ ...base, decisionId: 'p:egress-gate', causalId: 'c11', tool: 'mail.send', payload: mail, identity: await h.token({ tenant: 'noegress' }) }, 'egress_gate_missing'],
      [
        {
          ...base,
          decisionId: 'p:confirmation',
          causalId: 'c12',
          tool: 'ledger.transfer',
          payload: { from: 'a', to: 'b', amountMinor: 100, currency: 'EUR', reference: 'r1' },
          confirmationId: 'no-such-confirmation',
        } as DecisionInput,
        'confirmation_required',
      ],
    ];
    const allowed: DecisionInput = { ...base, decisionId: 'p:mail-ok', causalId: 'c13', tool: 'mail.send', payload: mail };
    await h.client.send([...cases.map(([d]) => d), allowed]);
    const ids = [...cases.map(([d]) => d.decisionId), allowed.decisionId];
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === ids.length);

    const rows = new Map((await h.finalRows(ids)).map((r) => [r.decision_id, r]));
    for (const [d, reason] of cases) {
      expect({ id: d.decisionId, kind: rows.get(d.decisionId)?.kind, reason: rows.get(d.decisionId)?.reason_code }).toEqual({
        id: d.decisionId,
        kind: 'authorization_refusal',
        reason,
      });
    }
    expect(rows.get('p:mail-ok')?.effect_boundary).toBe('effect_completed');
    const [counts] = await h.query<{ intents: string; mail: string }>(
      `SELECT (SELECT count(*) FROM intents WHERE decision_id = ANY($1))::text AS intents, (SELECT count(*) FROM mail_sink)::text AS mail`,
      [cases.map(([d]) => d.decisionId)],
    );
    expect(counts).toEqual({ intents: '0', mail: '1' });
  });
});
