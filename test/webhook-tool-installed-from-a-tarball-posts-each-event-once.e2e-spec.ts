import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Harness } from './support/harness';
import { exited, Stack } from './support/stack';
import { FAST_RECOVERY } from './support/effect-probes';

// examples/webhook-tool is written as a team outside the project would write a tool: it depends
// on the packed tool SDK and zod only, owns its table through its own migration, and reaches the
// services through ARVIS_TOOL_PACKAGES alone. scripts/build-example-tools.sh packs and installs it.
const PACKAGE = join(__dirname, '..', 'examples', 'webhook-tool');

/** The tenant's endpoint: delivers each Idempotency-Key once and answers look-ups by key. */
class WebhookEndpoint {
  readonly deliveries = new Map<string, { deliveryId: string; posts: number; body: Record<string, unknown> }>();
  private readonly server: Server = createServer((req, res) => void this.handle(req).then(([status, body]) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))));

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close = () => new Promise<void>((r) => this.server.close(() => r()));

  private async handle(req: IncomingMessage): Promise<[number, unknown]> {
    const lookup = /^\/deliveries\/(.+)$/.exec(req.url ?? '');
    if (req.method === 'GET' && lookup) {
      const d = this.deliveries.get(decodeURIComponent(lookup[1]));
      return d ? [200, { deliveryId: d.deliveryId }] : [404, { error: 'unknown key' }];
    }
    const key = req.headers['idempotency-key'];
    if (req.method !== 'POST' || req.url !== '/events' || typeof key !== 'string') return [400, { error: 'bad request' }];
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const known = this.deliveries.get(key) ?? { deliveryId: `dlv-${this.deliveries.size + 1}`, posts: 0, body: JSON.parse(raw) };
    known.posts += 1;
    this.deliveries.set(key, known);
    return [201, { deliveryId: known.deliveryId }];
  }
}

describe('a webhook tool package installed from a tarball and named in configuration', () => {
  const endpoint = new WebhookEndpoint();
  let url: string;
  let stack: Stack;
  let h: Harness;
  const dispatcherEnv = () => ({ ...FAST_RECOVERY, WEBHOOK_TOOL_URL: url });
  const event = (order: string) => ({ tool: 'webhook.post', payload: { event: 'order.paid', data: { order, amount: 42 } } });
  const entryOf = async (decisionId: string) => {
    const [row] = await h.query<{ entry: string }>('SELECT entry FROM journal WHERE final_decision_id = $1', [decisionId]);
    return JSON.parse(row.entry) as { effectBoundary: string; reasonCode?: string; output?: { deliveryId: string } };
  };

  beforeAll(async () => {
    if (!existsSync(join(PACKAGE, 'dist', 'index.js'))) throw new Error('examples/webhook-tool is not built: run bash scripts/build-example-tools.sh');
    url = await endpoint.listen();
    stack = await Stack.create('webhook', { toolPackages: [PACKAGE] });
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
    // The tenant's gates, as an operator sets them: alice consented, acme lets data go to the provider.
    await h.query(`INSERT INTO consent_grants (tenant, principal, consent_key) VALUES ('acme', 'alice', 'webhook')`);
    await h.query(`INSERT INTO egress_policies (tenant, provider) VALUES ('acme', 'acme-webhooks')`);
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    await endpoint.close();
  });

  it('is reconciled from the endpoint when the dispatcher died after the POST, before its own bookkeeping', async () => {
    const dying = await stack.start('dispatcher', 'dispatcher-dying', { faults: { dispatcherCrashInsideTool: [{ decisionIdPrefix: 'crash:' }] }, env: dispatcherEnv() });
    const [d] = await h.decisions('webhook-crash', 1, { decisionId: 'crash:webhook', ...event('o-crash') });
    await h.client.send([d]);
    expect(await exited(dying)).toBe('SIGKILL');
    // Its own table would answer; make it unsure, as a death between the POST and the UPDATE leaves it.
    const reset = await h.query(`UPDATE webhook_deliveries SET state = 'sending', delivery_id = NULL, http_status = NULL RETURNING 1`);
    expect(reset).toHaveLength(1);

    await stack.start('dispatcher', 'dispatcher', { env: dispatcherEnv() });
    await h.waitUntil('the recovered final entry', async () => (await h.finalRows([d.decisionId])).length === 1);
    const entry = await entryOf(d.decisionId);
    expect(entry.effectBoundary).toBe('effect_completed');
    const [delivered] = [...endpoint.deliveries.values()].filter((x) => (x.body.data as { order: string }).order === 'o-crash');
    expect(entry.output?.deliveryId).toBe(delivered.deliveryId);
    expect(delivered.posts).toBe(1);
  });

  it('posts once for two decisions of one logical action, and both end with the same delivery', async () => {
    const [first] = await h.decisions('webhook-a', 1, event('o-1'));
    const [second] = await h.decisions('webhook-b', 1, event('o-1'));
    await h.client.send([first]);
    await h.waitUntil('the first final entry', async () => (await h.finalRows([first.decisionId])).length === 1);
    await h.client.send([second]);
    await h.waitUntil('the second final entry', async () => (await h.finalRows([second.decisionId])).length === 1);

    const [a, b] = [await entryOf(first.decisionId), await entryOf(second.decisionId)];
    expect([a.effectBoundary, b.effectBoundary]).toEqual(['effect_completed', 'effect_completed']);
    expect(b.output?.deliveryId).toBe(a.output?.deliveryId);
    const posted = [...endpoint.deliveries.values()].filter((x) => (x.body.data as { order: string }).order === 'o-1');
    expect(posted.map((p) => p.posts)).toEqual([1]);
  });

  it('is refused before any effect for a principal without the webhook consent', async () => {
    const [d] = await h.decisions('webhook-noconsent', 1, { ...event('o-bob'), identity: await h.token({ principal: 'bob' }) });
    await h.client.send([d]);
    await h.waitUntil('the refusal', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0].reason_code).toBe('consent_required');
    expect([...endpoint.deliveries.values()].some((x) => (x.body.data as { order: string }).order === 'o-bob')).toBe(false);
  });
});
