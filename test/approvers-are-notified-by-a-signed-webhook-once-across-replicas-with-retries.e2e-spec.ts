import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

const SECRET = 'webhook-secret-of-the-approvers-'.padEnd(40, 'x');

interface Received {
  deliveryId: string;
  event: string;
  signature: string;
  body: string;
  answered: number;
}

// Approvers are told a confirmation waits (ADR 0070): two authorizer replicas, one webhook
// endpoint started here that fails each delivery's first attempt. Each confirmation's "parked"
// and "expiring" notifications arrive once acknowledged, retried after the failure, never sent by
// both replicas, signed with a timestamped HMAC, with ids, tool, tenant and a link, and neither
// the payload nor the token; each delivery is recorded.
describe('approver notifications', () => {
  let stack: Stack;
  let h: Harness;
  let endpoint: Server;
  const received: Received[] = [];

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const deliveryId = String(req.headers['arvis-delivery']);
        const answered = received.some((r) => r.deliveryId === deliveryId) ? 204 : 503;
        received.push({ deliveryId, event: String(req.headers['arvis-event']), signature: String(req.headers['arvis-signature']), body, answered });
        res.writeHead(answered).end(answered === 503 ? 'try later' : undefined);
      });
    });
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    stack = await Stack.create('notify');
    const env = {
      NOTIFY_WEBHOOK_URL: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/hooks/arvis`,
      NOTIFY_WEBHOOK_SECRET: SECRET,
      CONSOLE_PUBLIC_URL: 'https://ops.example/approvals/console',
      NOTIFY_POLL_MS: '200',
      NOTIFY_BACKOFF_MS: '300',
      CONFIRMATION_REQUEST_TTL_MS: '30000',
      NOTIFY_BEFORE_EXPIRY_MS: '25000',
    };
    await Promise.all([stack.start('authorizer', 'authorizer-a', { env }), stack.start('authorizer', 'authorizer-b', { env })]);
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    await new Promise((r) => (endpoint ? endpoint.close(r) : r(undefined)));
  });

  it('sends each parked confirmation a parked and an expiring notification, signed, retried, once, without payload or token', async () => {
    const identity = await h.token({ principal: 'alice', tenant: 'acme' });
    const decisions = ['n:1', 'n:2', 'n:3'].map((id) => ({
      decisionId: id,
      runId: `notify-run-${id}`,
      causalId: id,
      tool: 'ledger.transfer',
      payload: { from: 'acc-1', to: 'acc-secret-77', amountMinor: 1_250_000, currency: 'EUR', reference: 'invoice-secret' },
      riskScore: 0.2,
      identity,
    }));
    await h.client.send(decisions);
    await h.waitUntil('six notifications delivered', async () => {
      const [{ n }] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM approver_notifications WHERE delivered_at IS NOT NULL');
      return n === '6';
    });
    const confirmations = await h.query<{ confirmation_id: string; decision_id: string; expires_at: Date }>('SELECT confirmation_id, decision_id, expires_at FROM confirmations ORDER BY decision_id');
    expect(confirmations.map((c) => c.decision_id)).toEqual(['n:1', 'n:2', 'n:3']);

    // Each delivery: one failed attempt, then one acknowledged; never a second acknowledged one.
    const byDelivery = new Map<string, Received[]>();
    for (const r of received) byDelivery.set(r.deliveryId, [...(byDelivery.get(r.deliveryId) ?? []), r]);
    expect(byDelivery.size).toBe(6);
    for (const attempts of byDelivery.values()) {
      expect(attempts.map((a) => a.answered)).toEqual([503, 204]);
      expect(attempts[0].body).toBe(attempts[1].body);
    }
    const now = Math.floor(Date.now() / 1000);
    const bodies = [...byDelivery.values()].map(([, second]) => {
      // t=<unix seconds>,v1=HMAC-SHA256("<t>.<body>"): fresh per attempt, over the exact bytes.
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(second.signature)!;
      expect(m).not.toBeNull();
      expect(Math.abs(now - Number(m[1]))).toBeLessThan(120);
      expect(m[2]).toBe(createHmac('sha256', SECRET).update(`${m[1]}.${second.body}`).digest('hex'));
      return JSON.parse(second.body) as Record<string, string>;
    });
    expect(bodies.map((b) => `${b.decisionId} ${b.event}`).sort()).toEqual(
      ['n:1', 'n:2', 'n:3'].flatMap((d) => [`${d} confirmation.expiring`, `${d} confirmation.parked`]),
    );
    for (const b of bodies) {
      const c = confirmations.find((x) => x.decision_id === b.decisionId)!;
      expect(b).toEqual({
        deliveryId: expect.any(String),
        event: expect.stringMatching(/^confirmation\.(parked|expiring)$/),
        tenant: 'acme',
        confirmationId: c.confirmation_id,
        decisionId: b.decisionId,
        runId: `notify-run-${b.decisionId}`,
        tool: 'ledger.transfer',
        expiresAt: c.expires_at.toISOString(),
        link: `https://ops.example/approvals/console?confirmation=${c.confirmation_id}`,
      });
    }
    // Nothing of the payload, nothing of the token, in anything that was sent.
    const everything = received.map((r) => r.body + r.signature).join('\n');
    for (const secret of ['acc-secret-77', 'invoice-secret', '1250000', identity, identity.split('.')[2]]) expect(everything.includes(secret)).toBe(false);

    // Recorded: delivered, after two attempts, with the answer.
    const rows = await h.query<{ attempts: number; last_status: number; delivered: boolean }>('SELECT attempts, last_status, delivered_at IS NOT NULL AS delivered FROM approver_notifications');
    expect(rows).toEqual(Array.from({ length: 6 }, () => ({ attempts: 2, last_status: 204, delivered: true })));
  });
});
