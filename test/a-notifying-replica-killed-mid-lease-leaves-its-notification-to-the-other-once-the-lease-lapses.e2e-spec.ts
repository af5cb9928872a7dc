import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { exited, Stack } from './support/stack';

const SECRET = 'webhook-secret-of-the-approvers-'.padEnd(40, 'x');
const LEASE_MS = 4000;

interface Received {
  replica: string;
  deliveryId: string;
  body: string;
  at: number;
}

// ADR 0070's one duplicate, on purpose: two authorizer replicas, each posting to its own path of
// one endpoint (so the endpoint knows which replica sent). The first request is held unanswered
// and the replica that sent it is killed with SIGKILL while it holds the notification's lease. The
// other replica must send the same notification (same delivery id, same bytes) only once that
// lease has lapsed, its delivery must be recorded, and nothing is sent after that.
describe('a notifying replica killed mid-lease', () => {
  let stack: Stack;
  let h: Harness;
  let endpoint: Server;
  const replicas = new Map<string, RunningApp>();
  const received: Received[] = [];
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ replica: String(req.url).split('/').pop()!, deliveryId: String(req.headers['arvis-delivery']), body, at: Date.now() });
        // The first attempt is never answered: its sender dies holding the lease.
        if (received.length === 1) held.push(res);
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    stack = await Stack.create('notify-kill');
    const env = (replica: string) => ({
      NOTIFY_WEBHOOK_URL: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/hooks/${replica}`,
      NOTIFY_WEBHOOK_SECRET: SECRET,
      CONSOLE_PUBLIC_URL: 'https://ops.example/console',
      NOTIFY_POLL_MS: '200',
      NOTIFY_LEASE_MS: String(LEASE_MS),
      NOTIFY_TIMEOUT_MS: '3000',
      // Only the "parked" notification: no "expiring" one within the spec.
      NOTIFY_BEFORE_EXPIRY_MS: '0',
      CONFIRMATION_REQUEST_TTL_MS: '600000',
    });
    const [a, b] = await Promise.all([stack.start('authorizer', 'authorizer-a', { env: env('a') }), stack.start('authorizer', 'authorizer-b', { env: env('b') })]);
    replicas.set('a', a).set('b', b);
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await h?.close();
    await stack?.stop();
    await new Promise((r) => (endpoint ? endpoint.close(r) : r(undefined)));
  });

  it('is sent by the other replica after the lease, with the same delivery id, and recorded once', async () => {
    const identity = await h.token({ principal: 'alice', tenant: 'acme' });
    await h.client.send([
      {
        decisionId: 'kill:1',
        runId: 'notify-kill-run',
        causalId: 'kill:1',
        tool: 'ledger.transfer',
        payload: { from: 'acc-1', to: 'acc-2', amountMinor: 4200, currency: 'EUR', reference: 'kill-mid-lease' },
        riskScore: 0.2,
        identity,
      },
    ]);
    await h.waitUntil('the first attempt to arrive', () => Promise.resolve(received.length >= 1), 30_000);
    const first = received[0];
    const [leased] = await h.query<{ leased: boolean; attempts: number }>('SELECT lease_until > now() AS leased, attempts FROM approver_notifications WHERE delivery_id = $1', [first.deliveryId]);
    expect(leased).toEqual({ leased: true, attempts: 1 });
    const sender = replicas.get(first.replica)!;
    sender.child.kill('SIGKILL');
    expect(await exited(sender)).toBe('SIGKILL');

    await h.waitUntil('the other replica to send it', () => Promise.resolve(received.length >= 2), LEASE_MS + 20_000);
    const second = received[1];
    expect(second.replica).not.toBe(first.replica);
    expect(second.deliveryId).toBe(first.deliveryId);
    expect(second.body).toBe(first.body);
    // Not before the dead replica's lease lapsed (the lease starts just before the first attempt).
    expect(second.at - first.at).toBeGreaterThanOrEqual(LEASE_MS - 250);

    await h.waitUntil('the delivery to be recorded', async () => (await h.query('SELECT 1 FROM approver_notifications WHERE delivered_at IS NOT NULL')).length === 1);
    // Several of the survivor's passes later: nothing more was sent, one row, delivered after two attempts.
    await new Promise((r) => setTimeout(r, 2000));
    expect(received.map((r) => r.deliveryId)).toEqual([first.deliveryId, first.deliveryId]);
    expect(await h.query('SELECT event, attempts, last_status, lease_until FROM approver_notifications')).toEqual([
      { event: 'confirmation.parked', attempts: 2, last_status: 204, lease_until: null },
    ]);
  });
});
