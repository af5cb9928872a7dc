import { Client } from 'pg';
import { topicsFor } from '@arvis/config';
import { createKafka, KafkaPublisher } from '@arvis/kafka';
import { OutboxRelay } from '@arvis/outbox';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// ADR 0059: an idle relay's fallback poll slows down (RELAY_POLL_MS doubled per idle period up to
// IDLE_POLL_MAX_MS), because NOTIFY, not the poll, is what wakes it for a commit. So a row
// committed after a long idle period is published at once, not at the next (slow) poll; and while
// the listener is being reconnected the poll is back at its own period, so a commit is not slept
// through then either.
describe('an idle relay', () => {
  let stack: Stack;
  let db: Client;
  let relay: OutboxRelay;
  let publisher: KafkaPublisher;
  let topic: string;
  const POLL_MS = 100;
  const IDLE_MAX_MS = 60_000;

  const insertRow = async (i: number) => db.query(`INSERT INTO outbox (topic, message_key, payload) VALUES ($1, 'run', json_build_object('i', $2::int)::text)`, [topic, i]);
  const publishedWithin = async (published: number, ms: number): Promise<number> => {
    const t0 = Date.now();
    while (relay.stats.published < published) {
      if (Date.now() - t0 > ms) throw new Error(`not published within ${ms} ms (poll period ${relay.pollPeriodMs} ms)`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return Date.now() - t0;
  };

  beforeAll(async () => {
    stack = await Stack.create('idlerelay');
    topic = topicsFor(stack.env.topicPrefix).intents;
    db = new Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    publisher = new KafkaPublisher(createKafka({ brokers: stack.env.brokers, clientId: 'idlerelay' }));
    const settings = { enabled: true, batchSize: 100, pollMs: POLL_MS, idlePollMaxMs: IDLE_MAX_MS, leaseMs: 30_000, retentionMs: 3_600_000, pruneBatch: 100, pruneIntervalMs: 3_600_000, maxBatchBytes: 512 * 1024, maxMessageBytes: 768 * 1024 };
    relay = new OutboxRelay(stack.env.databaseUrl, publisher, settings);
    await relay.start();
  });
  afterAll(async () => {
    await relay.stop();
    await publisher.disconnect();
    await db.end();
  });

  it('publishes a row committed after a long idle period at once, its poll slowed down meanwhile', async () => {
    await insertRow(0);
    await publishedWithin(1, 10_000);
    expect(relay.pollPeriodMs).toBe(POLL_MS);
    // 100, 200, 400, 800, 1600 ms idle periods: the next poll is at least 3.2 s away.
    await new Promise((r) => setTimeout(r, 4000));
    expect(relay.pollPeriodMs).toBeGreaterThanOrEqual(3200);
    const ms = await (async () => {
      await insertRow(1);
      return publishedWithin(2, 2000);
    })();
    expect(ms).toBeLessThan(1000);
    // Work brings the poll back to its own period.
    expect(relay.pollPeriodMs).toBe(POLL_MS);
  });

  it('polls at its own period again while its listener is reconnected, and publishes what was committed meanwhile', async () => {
    await new Promise((r) => setTimeout(r, 4000));
    expect(relay.pollPeriodMs).toBeGreaterThanOrEqual(3200);
    // The listener's session is cut (as by a database restart or a failover), and a row is
    // committed before the relay listens again: no NOTIFY reaches it.
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN arvis_outbox' AND pid <> pg_backend_pid()`,
    );
    expect(rows[0].n).toBe(1);
    await insertRow(2);
    await publishedWithin(3, 3000);
    const records = await readWholeTopic(stack.env.brokers, topic);
    expect(records.map((r) => (JSON.parse(r.value) as { i: number }).i)).toEqual([0, 1, 2]);
    expect(relay.stats.failedBatches).toBe(0);
  });
});
