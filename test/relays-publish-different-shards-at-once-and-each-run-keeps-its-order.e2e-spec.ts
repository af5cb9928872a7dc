import { Client } from 'pg';
import { topicsFor, type RelaySettings } from '@arvis/config';
import { createKafka, KafkaPublisher } from '@arvis/kafka';
import { applyRelayShards, OutboxRelay } from '@arvis/outbox';
import { specRelaySettings } from './support/relay-settings';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// With RELAY_SHARDS, the outbox is split by message key and each shard has its own publishing
// lock (ADR 0089): a relay busy with one shard (or paused holding it) no longer holds back the
// others, and relays in several processes publish at once. Order still holds per key, because a
// key's rows are all in one shard. Before sharding one lock covered every row: a relay holding it
// held back every run. The count is the database's (npm run migrate with RELAY_SHARDS): a relay
// whose own RELAY_SHARDS differs takes the database's at its first batch, so two relays never
// split one run's rows between two locks.
const SHARDS = 4;
const RELAY_LOCK_KEY = 7_276_873_010;
const settings = specRelaySettings(SHARDS);
const shardOf = `(hashtext(message_key) & 2147483647) % ${SHARDS}`;

describe('relays with the outbox in shards', () => {
  let stack: Stack;
  let db: Client;
  beforeAll(async () => {
    stack = await Stack.create('relayshards');
    db = new Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    expect(await applyRelayShards(db, SHARDS)).toEqual({ shards: SHARDS, previous: 1 });
  });
  afterAll(async () => {
    await db?.end();
  });

  const fill = async (topic: string, keys: number, rows: number, prefix: string) =>
    db.query(
      `INSERT INTO outbox (topic, message_key, payload)
       SELECT $1, $3 || (i % ${keys}), json_build_object('i', i)::text FROM generate_series(0, $2 - 1) AS i`,
      [topic, rows, prefix],
    );
  const unpublished = async (where = 'true'): Promise<number> =>
    Number((await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL AND ${where}`)).rows[0].n);
  const until = async (what: string, ok: () => Promise<boolean>, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** Each row once, and every key's rows in the order they were written. */
  const expectEachRowOnceInKeyOrder = (records: { key: string | null; value: string }[], rows: number, keys: number, prefix: string) => {
    const mine = records.filter((r) => r.key?.startsWith(prefix));
    const seen = mine.map((r) => (JSON.parse(r.value) as { i: number }).i);
    expect(seen.length).toBe(rows);
    expect(new Set(seen).size).toBe(rows);
    for (let k = 0; k < keys; k++) {
      const ofKey = mine.filter((r) => r.key === `${prefix}${k}`).map((r) => (JSON.parse(r.value) as { i: number }).i);
      expect(ofKey).toEqual([...ofKey].sort((x, y) => x - y));
    }
  };

  /** Relays of these settings (one publisher each), started, run through `whileRunning`, then stopped. */
  const withRelays = async (name: string, each: RelaySettings[], whileRunning: (relays: OutboxRelay[]) => Promise<void>): Promise<OutboxRelay[]> => {
    const publishers = each.map((_, i) => new KafkaPublisher(createKafka({ brokers: stack.env.brokers, clientId: `relayshards-${name}-${i}` })));
    const relays = each.map((relaySettings, i) => new OutboxRelay(stack.env.databaseUrl, publishers[i], relaySettings));
    try {
      await Promise.all(relays.map((r) => r.start()));
      await whileRunning(relays);
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
      await Promise.all(publishers.map((p) => p.disconnect()));
    }
    return relays;
  };
  const drain = async () => until('the outbox to drain', async () => (await unpublished()) === 0, 120_000);

  it('a shard whose lock another session holds holds back only its own keys; the rest are published, and it follows once released', async () => {
    const topic = topicsFor(stack.env.topicPrefix).intents;
    const KEYS = 16;
    const ROWS = 320;
    await fill(topic, KEYS, ROWS, 'held-');
    const heldRows = await unpublished(`${shardOf} = 0`);
    // The keys fall in more than one shard, shard 0 among them (hashtext is fixed for these names).
    expect(heldRows).toBeGreaterThan(0);
    expect(heldRows).toBeLessThan(ROWS);

    // Shard 0's lock is the key of the relay before sharding: held as a relay of that version would.
    const holder = new Client({ connectionString: stack.env.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock($1::bigint)', [RELAY_LOCK_KEY]);
    const publisher = new KafkaPublisher(createKafka({ brokers: stack.env.brokers, clientId: 'relayshards-held' }));
    const relay = new OutboxRelay(stack.env.databaseUrl, publisher, settings);
    try {
      await relay.start();
      await until('every row outside the held shard to be published', async () => (await unpublished(`${shardOf} <> 0`)) === 0);
      expect(await unpublished(`${shardOf} = 0`)).toBe(heldRows);
      expect(relay.stats.skippedWhileAnotherRelayActive).toBeGreaterThan(0);
      await holder.query('COMMIT');
      // The relay stood by for shard 0 only until its next poll.
      await until('the held shard to be published once released', async () => (await unpublished()) === 0);
      expect(relay.stats.published).toBe(ROWS);
    } finally {
      await holder.end().catch(() => undefined);
      await relay.stop();
      await publisher.disconnect();
    }
    expectEachRowOnceInKeyOrder(await readWholeTopic(stack.env.brokers, topic), ROWS, KEYS, 'held-');
  });

  it('three relays draining one outbox at once publish each row exactly once, and in order per key', async () => {
    const topic = topicsFor(stack.env.topicPrefix).journal;
    const KEYS = 24;
    const ROWS = 3000;
    await fill(topic, KEYS, ROWS, 'many-');
    const relays = await withRelays('many', [settings, settings, settings], drain);
    const stats = relays.map((r) => r.stats);
    console.log(`published per relay ${stats.map((s) => s.published).join(', ')}; skipped ${stats.map((s) => s.skippedWhileAnotherRelayActive).join(', ')}`);
    expect(stats.reduce((n, s) => n + s.published, 0)).toBe(ROWS);
    expect(stats.every((s) => s.failedBatches === 0)).toBe(true);
    expectEachRowOnceInKeyOrder(await readWholeTopic(stack.env.brokers, topic), ROWS, KEYS, 'many-');
  });
  it('relays started with other counts than the database\'s take its count: each row once, in order per key', async () => {
    const topic = topicsFor(stack.env.topicPrefix).intents;
    const KEYS = 24;
    const ROWS = 3000;
    await fill(topic, KEYS, ROWS, 'mixed-');
    // RELAY_SHARDS 1, 2 and 4 on one database: with its own count, the relay of 1 would publish
    // every row under shard 0's lock while the others publish shards 1-3 under theirs.
    const relays = await withRelays('mixed', [1, 2, SHARDS].map(specRelaySettings), drain);
    expect(relays.map((r) => r.shardCount)).toEqual([SHARDS, SHARDS, SHARDS]);
    expect(relays.reduce((n, r) => n + r.stats.published, 0)).toBe(ROWS);
    expectEachRowOnceInKeyOrder(await readWholeTopic(stack.env.brokers, topic), ROWS, KEYS, 'mixed-');
  });

  it('a count changed while relays publish: the change waits for the batches in flight, and every relay takes the new count with no row twice', async () => {
    const topic = topicsFor(stack.env.topicPrefix).journal;
    const KEYS = 24;
    let rows = 0;
    const write = async (n: number) => {
      // Each fill continues the numbering, so every key's rows are written in increasing i.
      await db.query(
        `INSERT INTO outbox (topic, message_key, payload)
         SELECT $1, 'change-' || (i % ${KEYS}), json_build_object('i', i)::text FROM generate_series($2::int, $2::int + $3::int - 1) AS i`,
        [topic, rows, n],
      );
      rows += n;
    };
    const changer = new Client({ connectionString: stack.env.databaseUrl });
    await changer.connect();
    let relays: OutboxRelay[];
    try {
      relays = await withRelays('change', [settings, settings, settings], async (running) => {
        for (const [step, count] of [2, 3, 1, SHARDS].entries()) {
          await write(400);
          // While the relays drain what was just written: the count moves under them.
          await new Promise((r) => setTimeout(r, 20 * step));
          expect((await applyRelayShards(changer, count)).shards).toBe(count);
          await write(400);
          await until(`the relays to take ${count} shards`, async () => {
            await write(10);
            return running.every((r) => r.shardCount === count);
          });
        }
        await drain();
      });
    } finally {
      await changer.end().catch(() => undefined);
    }
    expect(relays.reduce((n, r) => n + r.stats.published, 0)).toBe(rows);
    expectEachRowOnceInKeyOrder(await readWholeTopic(stack.env.brokers, topic), rows, KEYS, 'change-');
  });
});
