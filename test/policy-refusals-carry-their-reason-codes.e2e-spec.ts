import { Client } from 'pg';
import { generateEd25519KeyPair } from '@arvis/crypto';
import { mintIdentityToken, type DecisionInput } from '@arvis/decision-client';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { metric, Stack } from './support/stack';

// Every policy refusal through the running authorizer (production profile): one final
// authorization_refusal with its reason code, and no intent, capability use or effect.
// Decisions that break several gates at once prove the order of the gates (docs/architecture.md step 3, ADR 0014).
// A token that does not verify is attributable to no one: that decision is not refused in the
// journal but dead-lettered (identity_invalid, with the decisionId it claimed), with no inbox row.

type Build = (h: Harness) => Promise<Omit<DecisionInput, 'decisionId' | 'causalId' | 'runId'>>;
const mail = { to: 'bob@example.com', subject: 'hi', body: 'hello' };
const note = { tool: 'notes.append', payload: { text: 'x' }, riskScore: 0.1 };
const alice = (h: Harness) => h.token({ tenant: 'acme', principal: 'alice' });

const scenarios: [scenario: string, reason: string, build: Build][] = [
  ['a token that expired', 'identity_invalid', async (h) => ({ ...note, identity: await h.token({}, -120) })],
  [
    'a token signed with a key the issuer does not hold',
    'identity_invalid',
    async (h) => ({
      ...note,
      identity: await mintIdentityToken(
        { issuer: h.env.issuer.issuer, privateKeyPem: generateEd25519KeyPair().privateKeyPem },
        { principal: 'alice', tenant: 'acme', serviceId: 'agent-1' },
      ),
    }),
  ],
  [
    'an unsigned token (alg none)',
    'identity_invalid',
    async (h) => ({
      ...note,
      identity: `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
        JSON.stringify({ sub: 'alice', tenant: 'acme', azp: 'agent-1', iss: h.env.issuer.issuer, exp: 9999999999 }),
      ).toString('base64url')}.x`,
    }),
  ],
  ['the kernel principal as the user', 'authenticated_principal_required', async (h) => ({ ...note, identity: await h.token({ principal: '__kernel__' }) })],
  ['a tool not in the catalog', 'unknown_tool', async (h) => ({ tool: 'shell.exec', payload: { cmd: 'ls' }, riskScore: 0.1, identity: await alice(h) })],
  ['a payload that breaks the input schema', 'input_schema_violation', async (h) => ({ ...note, payload: { text: 42 }, identity: await alice(h) })],
  ['a risk above the tool maximum', 'risk_exceeded', async (h) => ({ ...note, riskScore: 0.9, identity: await alice(h) })],
  ['a principal without the consent the tool needs', 'consent_required', async (h) => ({ tool: 'mail.send', payload: mail, riskScore: 0.1, identity: await h.token({ tenant: 'acme', principal: 'bob' }) })],
  ['a tenant with no consent data at all', 'consent_gate_missing', async (h) => ({ tool: 'mail.send', payload: mail, riskScore: 0.1, identity: await h.token({ tenant: 'nogates' }) })],
  ['a tenant whose egress policy does not list the provider', 'egress_denied', async (h) => ({ tool: 'mail.send', payload: mail, riskScore: 0.1, identity: await h.token({ tenant: 'walled' }) })],
  ['a tenant with no egress policy', 'egress_gate_missing', async (h) => ({ tool: 'mail.send', payload: mail, riskScore: 0.1, identity: await h.token({ tenant: 'noegress' }) })],
  [
    'a confirmation id that names no approved confirmation',
    'confirmation_required',
    async (h) =>
      ({
        tool: 'ledger.transfer',
        payload: { from: 'a', to: 'b', amountMinor: 100, currency: 'EUR', reference: 'r1' },
        riskScore: 0.1,
        identity: await alice(h),
        confirmationId: 'no-such-confirmation',
      }) as Awaited<ReturnType<Build>>,
  ],
  // Precedence: the earlier gate wins.
  ['an expired token on an unknown tool (identity first)', 'identity_invalid', async (h) => ({ tool: 'shell.exec', payload: {}, riskScore: 0.99, identity: await h.token({}, -120) })],
  ['an unknown tool with a risk above any maximum (catalog before risk)', 'unknown_tool', async (h) => ({ tool: 'shell.exec', payload: {}, riskScore: 0.99, identity: await alice(h) })],
  ['a schema violation with a risk above the maximum (schema before risk)', 'input_schema_violation', async (h) => ({ ...note, payload: { text: 42 }, riskScore: 0.9, identity: await alice(h) })],
  ['a risk above the maximum without consent (risk before consent)', 'risk_exceeded', async (h) => ({ tool: 'mail.send', payload: mail, riskScore: 0.9, identity: await h.token({ tenant: 'acme', principal: 'bob' }) })],
  ['no consent where egress is also denied (consent before egress)', 'consent_required', async (h) => ({ tool: 'mail.send', payload: mail, riskScore: 0.1, identity: await h.token({ tenant: 'walled', principal: 'bob' }) })],
];

describe('policy refusals carry their reason codes', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  const ids = scenarios.map((_, i) => `p:${i}`);
  const allowedId = 'p:mail-ok';
  let rows: Map<string, { kind: string; reason_code: string | null; effect_boundary: string }>;

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
    authorizer = await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();

    const decisions: DecisionInput[] = [];
    for (const [i, [, , build]] of scenarios.entries()) decisions.push({ ...(await build(h)), decisionId: ids[i], causalId: `c${i}`, runId: 'policy-run' } as DecisionInput);
    decisions.push({ decisionId: allowedId, causalId: 'c-ok', runId: 'policy-run', tool: 'mail.send', payload: mail, riskScore: 0.1, identity: await alice(h) });
    await h.client.send(decisions);
    const journaled = [...ids.filter((_, i) => !unverifiable(scenarios[i][1])), allowedId];
    await h.waitUntil('a final entry per journaled decision', async () => (await h.finalRows(journaled)).length === journaled.length);
    await h.waitUntil('a dead letter per unverifiable decision', () => ids.filter((_, i) => unverifiable(scenarios[i][1])).every((id) => !!deadLetterOf(id)));
    rows = new Map((await h.finalRows([...ids, allowedId])).map((r) => [r.decision_id, r]));
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const unverifiable = (reason: string) => reason === 'identity_invalid';
  const deadLetterOf = (id: string) => h.journal.deadLetters.find((r) => r.sourceTopic === h.topics.decisions && r.decisionId === id);

  it.each(scenarios.map(([scenario, reason], i) => [scenario, reason, ids[i]]))('refuses %s with %s', async (_scenario, reason, id) => {
    const row = rows.get(id);
    if (!unverifiable(reason)) {
      expect([row?.kind, row?.effect_boundary, row?.reason_code]).toEqual(['authorization_refusal', 'pre_effect_refusal', reason]);
      return;
    }
    expect([row, deadLetterOf(id)?.reasonCode]).toEqual([undefined, reason]);
    expect(await h.query('SELECT decision_id FROM decision_inbox WHERE decision_id = $1', [id])).toEqual([]);
  });

  it('creates no intent for any refused decision, and runs the one policy allows', async () => {
    expect(rows.get(allowedId)?.effect_boundary).toBe('effect_completed');
    const [counts] = await h.query<{ intents: string; mail: string }>(
      `SELECT (SELECT count(*) FROM intents WHERE decision_id = ANY($1))::text AS intents, (SELECT count(*) FROM mail_sink)::text AS mail`,
      [ids],
    );
    expect(counts).toEqual({ intents: '0', mail: '1' });
  });

  // ADR 0049 (2026-12-04): a slice whose decisions are all allowed is written by its one insert
  // statement, which commits by itself; a refusal to journal needs a transaction.
  it('writes a lone allowed decision with one statement and a lone refused one in a transaction', async () => {
    const written = async () => ({
      one: await metric(authorizer, 'arvis_authorizer_slices_written_total', { writes: 'one_statement' }),
      tx: await metric(authorizer, 'arvis_authorizer_slices_written_total', { writes: 'transaction' }),
    });
    const sendAlone = async (decision: DecisionInput) => {
      await h.client.send([decision]);
      await h.waitUntil(`a final entry for ${decision.decisionId}`, async () => (await h.finalRows([decision.decisionId])).length === 1);
    };
    const before = await written();
    await sendAlone({ ...note, decisionId: 'p:lone-ok', causalId: 'c-lone-ok', runId: 'policy-lone-ok', identity: await alice(h) });
    const afterAllowed = await written();
    expect([afterAllowed.one - before.one, afterAllowed.tx - before.tx]).toEqual([1, 0]);
    await sendAlone({ ...note, riskScore: 0.9, decisionId: 'p:lone-refused', causalId: 'c-lone-refused', runId: 'policy-lone-refused', identity: await alice(h) });
    const afterRefused = await written();
    expect([afterRefused.one - afterAllowed.one, afterRefused.tx - afterAllowed.tx]).toEqual([0, 1]);
    expect((await h.finalRows(['p:lone-ok', 'p:lone-refused'])).map((r) => [r.decision_id, r.effect_boundary, r.reason_code]).sort()).toEqual([
      ['p:lone-ok', 'effect_completed', null],
      ['p:lone-refused', 'pre_effect_refusal', 'risk_exceeded'],
    ]);
  });
});
