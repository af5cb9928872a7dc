import { Client } from 'pg';
import { topicsFor } from '@arvis/config';
import { createKafka, KafkaPublisher } from '@arvis/kafka';
import { OutboxRelay } from '@arvis/outbox';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// When the broker's limit is lower than the relay's (a misconfiguration the byte budget cannot
// rule out), a multi-row send is refused as too large while the broker stores the other
// partitions' share. kafkajs then rolls back its sequence numbers for all of them, so the next
// send to those partitions is refused as "out of order sequence number", forever, unless the
// producer is replaced. And the relay must find the one row at fault and set it aside.
describe('the broker refusing one row of a batch as too large', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.create('refusedrow');
  });

  it('leaves the publisher able to send to the same partitions again', async () => {
    const topic = topicsFor(stack.env.topicPrefix).journal;
    const publisher = new KafkaPublisher(createKafka({ brokers: stack.env.brokers, clientId: 'refusedrow-publisher' }));
    const small = (n: number) => Array.from({ length: 24 }, (_, i) => ({ key: `k-${i}`, value: `small ${n}.${i}` }));
    try {
      await publisher.sendBatch(new Map([[topic, small(1)]]));
      const refused = new Map([[topic, [...small(2), { key: 'big', value: Buffer.alloc(1_200_000, 0x61) }]]]);
      await expect(publisher.sendBatch(refused)).rejects.toThrow(/max message size/);
      await publisher.sendBatch(new Map([[topic, small(3)]]));
    } finally {
      await publisher.disconnect();
    }
    const values = (await readWholeTopic(stack.env.brokers, topic)).map((r) => r.value);
    expect(values.filter((v) => v.startsWith('small 3.')).length).toBe(24);
  });

  it('quarantines that row only, publishes every other row, and the relay never fails a batch', async () => {
    const topic = topicsFor(stack.env.topicPrefix).intents;
    const db = new Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    const publisher = new KafkaPublisher(createKafka({ brokers: stack.env.brokers, clientId: 'refusedrow-relay' }));
    // Limits far above the broker's 1 MB: the first send holds every row, the big one included.
    const settings = { enabled: true, batchSize: 500, pollMs: 50, idlePollMaxMs: 50, leaseMs: 30_000, retentionMs: 3_600_000, pruneBatch: 100, pruneIntervalMs: 3_600_000, maxBatchBytes: 8 << 20, maxMessageBytes: 8 << 20 };
    const relay = new OutboxRelay(stack.env.databaseUrl, publisher, settings);
    try {
      await db.query(
        `INSERT INTO outbox (topic, message_key, payload)
         SELECT $1, CASE WHEN i = 30 THEN 'big' ELSE 'k-' || (i % 12) END,
                CASE WHEN i = 30 THEN repeat('b', 1200000) ELSE json_build_object('i', i)::text END
         FROM generate_series(1, 60) AS i ORDER BY i`,
        [topic],
      );
      await relay.start();
      const deadline = Date.now() + 60_000;
      for (;;) {
        const { rows } = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL AND quarantined_at IS NULL');
        if (rows[0].n === '0') break;
        if (Date.now() > deadline) throw new Error(`${rows[0].n} rows neither published nor quarantined; relay ${JSON.stringify(relay.stats)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const { rows: set } = await db.query<{ key: string; reason: string }>(
        `SELECT message_key AS key, quarantine_reason AS reason FROM outbox WHERE quarantined_at IS NOT NULL`,
      );
      expect(set.map((r) => r.key)).toEqual(['big']);
      expect(set[0].reason).toMatch(/^broker_refused: .*max message size/);
    } finally {
      await relay.stop();
      await publisher.disconnect();
      await db.end();
    }
    expect(relay.stats).toMatchObject({ published: 59, quarantined: 1, failedBatches: 0 });
    expect(publisher.recreated).toBeGreaterThanOrEqual(1);
    const records = await readWholeTopic(stack.env.brokers, topic);
    const seen = records.map((r) => (JSON.parse(r.value) as { i: number }).i);
    expect(new Set(seen).size).toBe(59);
    // The refused send may have stored other partitions' rows, sent again one at a time: each key
    // still reads in order once its copies are removed.
    for (let k = 0; k < 12; k++) {
      const ofKey = records.filter((r) => r.key === `k-${k}`).map((r) => (JSON.parse(r.value) as { i: number }).i);
      const firsts = ofKey.filter((v, idx) => ofKey.indexOf(v) === idx);
      expect(firsts).toEqual([...firsts].sort((x, y) => x - y));
    }
    console.log(`${records.length - 59} duplicate(s) from the refused multi-row send`);
  });
});
