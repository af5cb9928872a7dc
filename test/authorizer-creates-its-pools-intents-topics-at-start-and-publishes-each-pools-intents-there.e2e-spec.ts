import { join } from 'node:path';
import { intentsTopicOf } from '@arvis/contracts';
import { createKafka } from '@arvis/kafka';
import { brokers } from './support/environment';
import { Harness } from './support/harness';
import { ROOT } from './support/services';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// ADR 0080, on the plaintext broker: no job made the ledger pool's topic; the authorizer, whose
// catalog has a tool of that pool, makes it at start with the intents topic's partition count,
// and the relay publishes that pool's intents there (and nothing of it on the shared topic), from
// the same outbox as every other row.
const FIXTURE = join(ROOT, 'test', 'support', 'tool-packages', 'routed-pool');

describe("the authorizer and its pools' topics", () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('pooltopics', { toolPackages: [FIXTURE] });
    await stack.start('authorizer', 'authorizer');
    h = new Harness(stack.env);
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it("creates the pool's intents topic at start and publishes the pool's intent there only", async () => {
    const ledger = intentsTopicOf(h.topics, 'ledger');
    const admin = createKafka({ brokers: brokers(), clientId: 'pool-topics-check' }).admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [h.topics.intents, ledger] });
      expect(Object.fromEntries(topics.map((t) => [t.name, t.partitions.length]))).toEqual({ [h.topics.intents]: 6, [ledger]: 6 });
    } finally {
      await admin.disconnect();
    }
    const stamp = Date.now();
    const identity = await h.token();
    const d = { decisionId: `pt-${stamp}`, runId: `run-${stamp}`, causalId: 'c1', tool: 'pooled.echo', payload: { text: 'to the ledger pool' }, riskScore: 0.1, identity };
    await h.client.send([d]);
    await h.waitUntil('the intent to be published', async () => (await h.query('SELECT 1 FROM intents WHERE decision_id = $1', [d.decisionId])).length === 1 && (await h.query('SELECT 1 FROM outbox')).length === 0);
    const [row] = await h.query<{ pool: string; intent_id: string }>('SELECT pool, intent_id FROM intents WHERE decision_id = $1', [d.decisionId]);
    expect(row.pool).toBe('ledger');
    const onLedger = (await readWholeTopic(brokers(), ledger)).map((r) => JSON.parse(r.value) as { intentId: string; tool: string });
    expect(onLedger).toEqual([expect.objectContaining({ intentId: row.intent_id, tool: 'pooled.echo' })]);
    expect(await readWholeTopic(brokers(), h.topics.intents)).toEqual([]);
  });
});
