import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { chainHash } from '@arvis/crypto';
import { Harness } from './support/harness';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
}

type OtlpValue = { stringValue?: string };
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: { spans?: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[];
  }[];
}

// OTLP/JSON ids are hex; accept base64 too, in case an exporter sends the protobuf JSON mapping.
const hex = (id: string | undefined) => (!id ? '' : /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex'));

/** A minimal OTLP/HTTP receiver: POST /v1/traces with a JSON body, as exporter-trace-otlp-http sends it. */
function otlpReceiver(spans: ReceivedSpan[]): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      const body = JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')) as OtlpExport;
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({ service, name: s.name, traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId) });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
}

// The producer's trace context: what an agent framework would put on the decision it sends.
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PRODUCER_SPAN = 'b7ad6b7169203331';

describe('one decision is one trace across all processes', () => {
  const spans: ReceivedSpan[] = [];
  const receiver = otlpReceiver(spans);
  let stack: Stack;
  let h: Harness;

  beforeAll(async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` };
    stack = await Stack.create('otel');
    // The relay runs apart, so each of the three steps is its own process and service.name.
    await Promise.all([
      stack.start('authorizer', 'authorizer', { relay: false, env }),
      stack.start('dispatcher', 'dispatcher', { relay: false, env }),
      stack.start('relay', 'relay', { env }),
    ]);
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    await new Promise((r) => receiver.close(r));
  });

  it('carries the producer traceparent through authorizer, relay and dispatcher into the journal entry', async () => {
    const [decision] = await h.decisions('otel-run', 1);
    await h.client.send([decision], { traceparent: `00-${TRACE_ID}-${PRODUCER_SPAN}-01`, tracestate: 'agent=planner' });

    await h.waitUntil('the final journal entry', async () => (await h.finalRows([decision.decisionId])).length === 1, 20_000);
    const [row] = await h.query<{ trace_id: string | null; entry: string; prev_hash: string; hash: string }>(
      'SELECT trace_id, entry, prev_hash, hash FROM journal WHERE final_decision_id = $1',
      [decision.decisionId],
    );
    expect(row.trace_id).toBe(TRACE_ID);
    // Outside the hashed text: the chain verifies as before, whatever the trace.
    expect(row.entry).not.toContain(TRACE_ID);
    expect(chainHash(row.prev_hash, JSON.parse(row.entry))).toBe(row.hash);

    await h.journal.waitFor(() => h.journal.finalEntriesFor([decision.decisionId]).size === 1, 10_000);
    const [onTopic] = h.journal.finalEntriesFor([decision.decisionId]).get(decision.decisionId) ?? [];
    expect(onTopic).toMatchObject({ kind: 'tool_result', effectBoundary: 'effect_completed', traceId: TRACE_ID, hash: row.hash });

    const [intent] = await readWholeTopic(h.env.brokers, h.topics.intents);
    expect(intent.headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(intent.headers.tracestate).toBe('agent=planner');

    // A graceful stop flushes each process's batch span processor.
    await stack.stop();
    const services = () => new Set(spans.map((s) => s.service));
    await h.waitUntil('spans from all three processes', () => services().size >= 3, 5_000);
    expect(services()).toEqual(new Set(['arvis-authorizer', 'arvis-relay', 'arvis-dispatcher']));
    expect(spans.filter((s) => s.traceId !== TRACE_ID)).toEqual([]);

    const named = (service: string) => spans.filter((s) => s.service === service).map((s) => s.name);
    expect(named('arvis-authorizer').sort()).toEqual(['authorize decision', 'commit intent']);
    expect(named('arvis-relay')).toEqual(['relay publish', 'relay publish']); // the intent, then the journal entry
    expect(named('arvis-dispatcher').sort()).toEqual(['claim capability', 'dispatch intent', 'record results', 'run tool', 'verify intent']);

    // One tree: the decision's span hangs from the producer's, each hop from the one before.
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [authorize] = byName('authorize decision');
    const [commit] = byName('commit intent');
    const [dispatch] = byName('dispatch intent');
    expect(authorize.parentSpanId).toBe(PRODUCER_SPAN);
    expect(commit.parentSpanId).toBe(authorize.spanId);
    const intentPublish = byName('relay publish').find((s) => s.parentSpanId === commit.spanId)!;
    expect(intentPublish).toBeDefined();
    expect(dispatch.parentSpanId).toBe(intentPublish.spanId);
    expect(byName('relay publish').filter((s) => s.parentSpanId === dispatch.spanId)).toHaveLength(1); // the journal message
  });
});
