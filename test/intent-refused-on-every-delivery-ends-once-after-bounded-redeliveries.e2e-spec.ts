import { generateEd25519KeyPair } from '@arvis/crypto';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { Stack } from './support/stack';

// A genuine intent that its dispatcher refuses as untrusted on every delivery (here: the
// dispatcher no longer has the authorizer's verification key) used to be delivered again every
// minute, forever, and its decision never ended. Redelivery is now bounded, with backoff, and
// recovery (working from the intents row, never from a message) ends the decision once.
describe('an intent refused on every delivery', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('refusedintent');
    authorizer = await stack.start('authorizer', 'authorizer', { env: { CONFIRMATION_POLL_MS: '200' } });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('ends once as capability_activation_failed after a bounded number of redeliveries', async () => {
    const [d] = await h.decisions('refusedintent-run', 1);
    const stranger = generateEd25519KeyPair();
    await stack.start('dispatcher', 'dispatcher', {
      env: {
        INTENT_VERIFICATION_KEYS: JSON.stringify({ 'someone-else': stranger.publicKeyPem }),
        REDELIVER_AFTER_MS: '300',
        REDELIVER_MAX_ATTEMPTS: '2',
        RECOVERY_INTERVAL_MS: '200',
      },
    });
    await h.client.send([d]);
    await h.waitUntil('the final entry', async () => (await h.finalRows([d.decisionId])).length === 1, 60_000);
    const [entry] = await h.finalRows([d.decisionId]);
    expect([entry.kind, entry.effect_boundary, entry.reason_code]).toEqual(['tool_result', 'pre_effect_refusal', 'capability_activation_failed']);
    const [row] = await h.query<{ state: string; attempts: number; notes: string }>(
      `SELECT c.state, i.delivery_attempts AS attempts,
              (SELECT count(*) FROM notes n WHERE n.capability_id = c.capability_id)::text AS notes
       FROM capabilities c JOIN intents i ON i.intent_id = c.intent_id WHERE c.decision_id = $1`,
      [d.decisionId],
    );
    expect(row).toEqual({ state: 'revoked', attempts: 2, notes: '0' });
    // Nothing more is delivered once it has ended, and it ends only once.
    const delivered = () => h.query('SELECT delivery_attempts, last_delivered_at FROM intents WHERE decision_id = $1', [d.decisionId]);
    const before = await delivered();
    await new Promise((r) => setTimeout(r, 2500));
    expect(await delivered()).toEqual(before);
    expect(await h.finalRows([d.decisionId])).toHaveLength(1);
  });

  // An approved, parked decision whose intent is abandoned the same way: its capability is
  // revoked before any effect, so its approval must be released (approved again, reserved by
  // nothing), as every other revocation releases it. Before, the abandon left it reserved for ever.
  it('releases the approval of a parked decision whose intent it abandons', async () => {
    const d = {
      decisionId: 'refusedintent:transfer',
      runId: 'refusedintent-transfer-run',
      causalId: 'refusedintent:transfer',
      tool: 'ledger.transfer',
      payload: { from: 'acc-1', to: 'acc-2', amountMinor: 700, currency: 'EUR', reference: 'abandoned' },
      riskScore: 0.2,
      identity: await h.token({ principal: 'alice', tenant: 'acme' }),
    };
    await h.client.send([d]);
    const confirmation = async () =>
      (await h.query<{ confirmation_id: string; status: string; reserved_by: string | null }>('SELECT confirmation_id, status, reserved_by FROM confirmations WHERE decision_id = $1', [d.decisionId]))[0];
    await h.waitUntil('the transfer to be parked', async () => (await confirmation()) !== undefined);
    const carol = await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] });
    const approved = await fetch(`http://127.0.0.1:${authorizer.apiPort}/confirmations/${(await confirmation()).confirmation_id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${carol}` } });
    expect(approved.status).toBe(200);
    await h.waitUntil('the final entry', async () => (await h.finalRows([d.decisionId])).length === 1, 60_000);
    const [entry] = await h.finalRows([d.decisionId]);
    expect([entry.kind, entry.effect_boundary, entry.reason_code]).toEqual(['tool_result', 'pre_effect_refusal', 'capability_activation_failed']);
    const after = await confirmation();
    expect({ status: after.status, reservedBy: after.reserved_by }).toEqual({ status: 'approved', reservedBy: null });
  });
});
