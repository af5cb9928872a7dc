import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import type { DecisionInput } from '@arvis/decision-client';
import { applyDatabaseRoles, componentRole, DEFAULT_ROLE_PREFIX } from '@arvis/persistence';
import { RetentionPruner } from '../libs/lifecycle/src/retention-pruner';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { Stack } from './support/stack';

const SECRET = 'webhook-secret-of-the-approvers-'.padEnd(40, 'x');

// approver_notifications is pruned by retention (ADR 0086): a notification row goes in the same
// statement as its confirmation, once the dedupe window has passed and the confirmation no longer
// waits; a waiting confirmation keeps its row, and neither is notified again afterwards. The pass
// runs logged in as the authorizer's own database role, as retention does in the authorizer.
describe('retention of approver notifications', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  let endpoint: Server;
  let asAuthorizer: Pool;
  const received: string[] = [];

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['arvis-delivery']));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    stack = await Stack.create('notify-prune');
    await applyDatabaseRoles(stack.env.databaseUrl, { prefix: DEFAULT_ROLE_PREFIX, packages: ['@arvis/tool-demo'] });
    const url = new URL(stack.env.databaseUrl);
    url.username = componentRole(DEFAULT_ROLE_PREFIX, 'authorizer');
    asAuthorizer = new Pool({ connectionString: url.toString(), max: 1 });
    authorizer = await stack.start('authorizer', 'authorizer', {
      env: {
        NOTIFY_WEBHOOK_URL: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/hooks/arvis`,
        NOTIFY_WEBHOOK_SECRET: SECRET,
        CONSOLE_PUBLIC_URL: 'https://ops.example/console',
        NOTIFY_POLL_MS: '200',
        // Only the "parked" notification: no "expiring" one within the spec.
        NOTIFY_BEFORE_EXPIRY_MS: '0',
        CONFIRMATION_POLL_MS: '200',
        CONFIRMATION_REQUEST_TTL_MS: '600000',
      },
    });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await asAuthorizer?.end();
    await h?.close();
    await stack?.stop();
    await new Promise((r) => (endpoint ? endpoint.close(r) : r(undefined)));
  });

  const transfer = async (id: string): Promise<DecisionInput> => ({
    decisionId: id,
    runId: 'notify-prune-run',
    causalId: id,
    tool: 'ledger.transfer',
    payload: { from: 'acc-1', to: 'acc-2', amountMinor: 700, currency: 'EUR', reference: id },
    riskScore: 0.2,
    identity: await h.token({ principal: 'alice', tenant: 'acme' }),
  });
  const rows = async (decisionId: string) =>
    (
      await h.query<{ inbox: string; confirmations: string; notifications: string }>(
        `SELECT (SELECT count(*) FROM decision_inbox WHERE decision_id = $1)::text AS inbox,
                (SELECT count(*) FROM confirmations WHERE decision_id = $1)::text AS confirmations,
                (SELECT count(*) FROM approver_notifications n JOIN confirmations c USING (confirmation_id, tenant) WHERE c.decision_id = $1)::text AS notifications`,
        [decisionId],
      )
    )[0];

  it("deletes a denied confirmation's notification with it and keeps a waiting one's, and neither is sent again", async () => {
    const [denied, waiting] = [await transfer('prune:denied'), await transfer('prune:waiting')];
    await h.client.send([denied, waiting]);
    await h.waitUntil('both parked notifications delivered', async () => (await h.query('SELECT 1 FROM approver_notifications WHERE delivered_at IS NOT NULL')).length === 2);
    const [{ confirmation_id: deniedId }] = await h.query<{ confirmation_id: string }>('SELECT confirmation_id FROM confirmations WHERE decision_id = $1', [denied.decisionId]);
    const carol = await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] });
    const res = await fetch(`http://127.0.0.1:${authorizer.apiPort}/confirmations/${deniedId}/deny`, {
      method: 'POST',
      headers: { authorization: `Bearer ${carol}`, 'content-type': 'application/json' },
      body: JSON.stringify({ comment: 'not now' }),
    });
    expect(res.status).toBe(200);
    await h.waitUntil('the denied decision to end', async () => (await h.finalRows([denied.decisionId])).length === 1);
    expect(await rows(denied.decisionId)).toEqual({ inbox: '1', confirmations: '1', notifications: '1' });

    // Past a 1 s window (the authorizer's own retention is off; this pass needs no broker fence).
    await new Promise((r) => setTimeout(r, 1500));
    const counts = await new RetentionPruner(asAuthorizer, { decisionsMs: 1000, dedupeMs: 1000, batch: 10 }).pruneOnce({ dedupe: true });
    const [{ n }] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM approver_notifications WHERE confirmation_id = $1', [deniedId]);
    expect(n).toBe('0');
    expect(counts).toMatchObject({ inbox: 1, confirmations: 1, notifications: 1 });
    expect(await rows(waiting.decisionId)).toEqual({ inbox: '1', confirmations: '1', notifications: '1' });

    // Several notification passes later: the waiting confirmation was not notified again.
    await new Promise((r) => setTimeout(r, 1500));
    expect(received.length).toBe(2);
    expect(await h.query('SELECT count(*)::int AS n FROM approver_notifications')).toEqual([{ n: 1 }]);
  });
});
