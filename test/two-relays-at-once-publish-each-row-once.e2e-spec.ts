import { Client } from 'pg';
import { topicsFor } from '@arvis/config';
import { createKafka, KafkaPublisher } from '@arvis/kafka';
import { OutboxRelay } from '@arvis/outbox';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// The relay's guard: one relay publishes at a time (a transaction-scoped advisory lock per
// batch). Two relays draining one outbox at once must publish every row exactly once, in each
// key's order; without the lock both read the same unpublished rows and publish them twice.
describe('two relays draining one outbox at once', () => {
  let stack: Stack;
  const ROWS = 3000;
  const KEYS = 12;
  beforeAll(async () => {
    stack = await Stack.create('relaylock');
  });

  it('publish each row exactly once, in order per key, and both take turns', async () => {
    const topic = topicsFor(stack.env.topicPrefix).intents;
    const db = new Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    try {
      const rows = Array.from({ length: ROWS }, (_, i) => i);
      await db.query(
        `INSERT INTO outbox (topic, message_key, payload)
         SELECT $1, 'run-' || (i % ${KEYS}), json_build_object('i', i)::text FROM unnest($2::int[]) AS i`,
        [topic, rows],
      );
    } finally {
      await db.end();
    }

    const settings = { enabled: true, batchSize: 100, pollMs: 50, idlePollMaxMs: 50, leaseMs: 30_000, retentionMs: 3_600_000, pruneBatch: 100, pruneIntervalMs: 3_600_000, maxBatchBytes: 512 * 1024, maxMessageBytes: 768 * 1024 };
    const publishers = ['a', 'b'].map((n) => new KafkaPublisher(createKafka({ brokers: stack.env.brokers, clientId: `relaylock-${n}` })));
    const relays = publishers.map((p) => new OutboxRelay(stack.env.databaseUrl, p, settings));
    await Promise.all(relays.map((r) => r.start()));
    const check = new Client({ connectionString: stack.env.databaseUrl });
    await check.connect();
    try {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const { rows } = await check.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL');
        if (rows[0].n === '0') break;
        if (Date.now() > deadline) throw new Error(`${rows[0].n} rows still unpublished`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await check.end();
      await Promise.all(relays.map((r) => r.stop()));
      await Promise.all(publishers.map((p) => p.disconnect()));
    }

    const records = await readWholeTopic(stack.env.brokers, topic);
    const seen = records.map((r) => (JSON.parse(r.value) as { i: number }).i);
    expect(seen.length).toBe(ROWS);
    expect(new Set(seen).size).toBe(ROWS);
    for (let k = 0; k < KEYS; k++) {
      const ofKey = records.filter((r) => r.key === `run-${k}`).map((r) => (JSON.parse(r.value) as { i: number }).i);
      expect(ofKey).toEqual([...ofKey].sort((x, y) => x - y));
      expect(ofKey.length).toBe(ROWS / KEYS);
    }
    const [a, b] = relays.map((r) => r.stats);
    expect(a.published + b.published).toBe(ROWS);
    expect(a.failedBatches + b.failedBatches).toBe(0);
    // Both were active at once: at least one found the other holding the lock.
    expect(a.skippedWhileAnotherRelayActive + b.skippedWhileAnotherRelayActive).toBeGreaterThan(0);
    console.log(
      `relay a published ${a.published} (skipped ${a.skippedWhileAnotherRelayActive}), b published ${b.published} (skipped ${b.skippedWhileAnotherRelayActive})`,
    );
  });

  // Every commit that writes outbox rows sends one NOTIFY, heard by every relay. A relay that found
  // the lock taken leaves the notifications to the one publishing until its own next poll, rather
  // than opening a transaction per commit only to find the lock taken again.
  it('a relay that found the other publishing stands by until its next poll instead of trying at every commit', async () => {
    const topic = topicsFor(stack.env.topicPrefix).journal;
    const settings = { enabled: true, batchSize: 100, pollMs: 60_000, idlePollMaxMs: 60_000, leaseMs: 30_000, retentionMs: 3_600_000, pruneBatch: 100, pruneIntervalMs: 3_600_000, maxBatchBytes: 512 * 1024, maxMessageBytes: 768 * 1024 };
    const publishers = ['c', 'd'].map((n) => new KafkaPublisher(createKafka({ brokers: stack.env.brokers, clientId: `relaylock-${n}` })));
    const [active, second] = publishers.map((p) => new OutboxRelay(stack.env.databaseUrl, p, settings));
    const db = new Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    const COMMITS = 60;
    try {
      await second.start();
      // Hold the lock as the active relay would, while the second relay hears a first commit.
      const holder = new Client({ connectionString: stack.env.databaseUrl });
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(7276873010)');
      await db.query(`INSERT INTO outbox (topic, message_key, payload) VALUES ($1, 'k', '{"n":-1}')`, [topic]);
      const deadline = Date.now() + 10_000;
      while (second.stats.skippedWhileAnotherRelayActive === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await holder.query('COMMIT');
      await holder.end();
      await active.start();
      const skippedAfterFirst = second.stats.skippedWhileAnotherRelayActive;
      expect(skippedAfterFirst).toBeGreaterThan(0);
      for (let n = 0; n < COMMITS; n++) {
        await db.query(`INSERT INTO outbox (topic, message_key, payload) VALUES ($1, 'k', $2)`, [topic, JSON.stringify({ n })]);
        await new Promise((r) => setTimeout(r, 5));
      }
      for (;;) {
        const { rows } = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL');
        if (rows[0].n === '0') break;
        if (Date.now() > deadline + 30_000) throw new Error(`${rows[0].n} rows still unpublished`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // The second relay heard every commit and, standing by, tried none of them.
      expect(second.stats.skippedWhileAnotherRelayActive).toBe(skippedAfterFirst);
      expect(second.stats.published).toBe(0);
      expect(active.stats.published).toBe(COMMITS + 1);
    } finally {
      await db.end();
      await Promise.all([active.stop(), second.stop()]);
      await Promise.all(publishers.map((p) => p.disconnect()));
    }
  });
});
