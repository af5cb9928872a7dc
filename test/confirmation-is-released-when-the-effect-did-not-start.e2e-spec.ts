import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { Stack } from './support/stack';

// Finalization is keyed on the effect boundary: a confirmed decision whose effect never started
// (here the dispatcher refuses the intent's catalog: frozen_surface_diverged) releases its
// confirmation back to approved instead of spending it.
describe('a reserved confirmation whose effect did not start', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('release');
    authorizer = await stack.start('authorizer', 'authorizer', {
      faults: { authorizerCatalogSkew: true },
      env: { CONFIRMATION_POLL_MS: '200' },
    });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('is released back to approved, and nothing moved', async () => {
    const d = {
      decisionId: 'release:1',
      runId: 'release-run',
      causalId: 'c1',
      tool: 'ledger.transfer',
      payload: { from: 'acc-1', to: 'acc-2', amountMinor: 500, currency: 'EUR', reference: 'release-1' },
      riskScore: 0.2,
      identity: await h.token({ principal: 'alice', tenant: 'acme' }),
    };
    await h.client.send([d]);
    const confirmation = async () =>
      (await h.query<{ confirmation_id: string; status: string; reserved_by: string | null }>(
        'SELECT confirmation_id, status, reserved_by FROM confirmations WHERE decision_id = $1',
        [d.decisionId],
      ))[0];
    await h.waitUntil('the decision to be parked', async () => !!(await confirmation()));
    const approver = await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] });
    const res = await fetch(`http://127.0.0.1:${authorizer.apiPort}/confirmations/${(await confirmation()).confirmation_id}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${approver}` },
    });
    expect(res.status).toBe(200);

    await h.waitUntil('the final entry', async () => (await h.finalRows([d.decisionId])).length === 1);
    const [entry] = await h.finalRows([d.decisionId]);
    expect([entry.effect_boundary, entry.reason_code]).toEqual(['pre_effect_refusal', 'frozen_surface_diverged']);
    expect(await confirmation()).toMatchObject({ status: 'approved', reserved_by: null });
    const [ledger] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM ledger_transfers');
    expect(ledger.n).toBe('0');
  });
});
