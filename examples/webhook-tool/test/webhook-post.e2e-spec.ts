import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runTool, toolTestDatabase, type ToolTestDatabase } from '@arvis/tool-sdk/testing';
import { toolPackage, webhookPost } from '../src';

// The package tests itself as the dispatcher would run it (@arvis/tool-sdk/testing: input parsing,
// the body, output parsing, classification), on a real PostgreSQL database with its migrations,
// against a local endpoint standing in for the tenant's.
describe('webhook.post run by the SDK testing kit', () => {
  let db: ToolTestDatabase;
  let server: Server;
  const posts: { key: string | undefined; body: unknown }[] = [];
  let failNext = false;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        if (failNext) {
          failNext = false;
          res.writeHead(503).end('busy');
          return;
        }
        posts.push({ key: req.headers['idempotency-key'] as string | undefined, body: JSON.parse(text) });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ deliveryId: `dl-${posts.length}` }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.env.WEBHOOK_TOOL_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    db = await toolTestDatabase(toolPackage, 'postgresql://postgres@127.0.0.1:5432/postgres');
  });
  afterAll(async () => {
    await db?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('posts once per idempotency key and answers the second call from its own table', async () => {
    const payload = { event: 'order.paid', data: { order: 'o-1', amount: 12 } };
    const first = await runTool(webhookPost, payload, { db, idempotencyKey: 'idem:once' });
    const second = await runTool(webhookPost, payload, { db, idempotencyKey: 'idem:once' });
    expect(first).toMatchObject({ effectBoundary: 'effect_completed', success: true, output: { deliveryId: 'dl-1', httpStatus: 200 } });
    expect(second).toMatchObject({ effectBoundary: 'effect_completed', success: true, output: { deliveryId: 'dl-1', httpStatus: 200 } });
    expect(posts.map((p) => p.key)).toEqual(['idem:once']);
    expect((await db.query('SELECT state FROM webhook_deliveries WHERE idempotency_key = $1', ['idem:once'])).rows).toEqual([{ state: 'delivered' }]);
  });

  it('is refused before any effect when its input does not parse', async () => {
    const r = await runTool(webhookPost, { event: '', data: {} }, { db });
    expect(r).toMatchObject({ effectBoundary: 'pre_effect_refusal', reasonCode: 'input_schema_violation' });
    expect(posts).toHaveLength(1);
  });

  it('fails as tool_execution_failed when the endpoint refuses', async () => {
    failNext = true;
    const r = await runTool(webhookPost, { event: 'order.paid', data: {} }, { db, idempotencyKey: 'idem:busy' });
    expect(r).toMatchObject({ effectBoundary: 'effect_failed', reasonCode: 'tool_execution_failed' });
    expect(r.error?.message).toMatch(/answered 503/);
  });
});
