import { createKafka } from '@arvis/kafka';
import { Harness } from './support/harness';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// Nothing reads a published outbox row again, so the relay deletes it in the transaction that saw
// the broker's acknowledgement (ADR 0048) instead of marking it and pruning it 7 days later. Rows
// a relay from before that change marked published are still pruned after RELAY_RETENTION_MS.
describe('published outbox rows are deleted at publish', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('prune');
    // The default retention (7 days) keeps every row an old relay marked in this spec's lifetime.
    // Small byte limits, so the second case's rows cut batches (the path's own messages fit them).
    const env = { RELAY_PRUNE_INTERVAL_MS: '200', RELAY_PRUNE_BATCH: '7', RELAY_MAX_BATCH_BYTES: '2048', RELAY_MAX_MESSAGE_BYTES: '32768', DLQ_MAX_RAW_BYTES: '2048' };
    await stack.start('authorizer', 'authorizer', { env });
    await stack.start('dispatcher', 'dispatcher', { env });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('leaves no published row behind, prunes rows an older relay marked, and keeps the record tables whole', async () => {
    // As a relay of the previous version leaves them: published 8 days ago, never deleted.
    await h.query(`INSERT INTO outbox (topic, message_key, payload, published_at)
                   SELECT 'legacy.topic', 'k' || g, 'p', now() - interval '8 days' FROM generate_series(1, 10) g`);
    const decisions = await h.decisions('prune-run', 20);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === 20);
    await h.journal.waitFor(() => h.journal.finalEntriesFor(ids).size === 20, 30_000);
    await h.waitUntil('the outbox to be empty', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox');
      return r.n === '0';
    });
    const [kept] = await h.query<{ intents: string; journal: string }>(
      `SELECT (SELECT count(*) FROM intents WHERE decision_id = ANY($1))::text AS intents,
              (SELECT count(*) FROM journal WHERE decision_id = ANY($1))::text AS journal`,
      [ids],
    );
    expect(kept).toEqual({ intents: '20', journal: '20' });
    // Every journal entry reached the topic before its row was deleted.
    expect(h.journal.finalEntriesFor(ids).size).toBe(20);
  });

  // The relay reads each batch's rows with their sizes and their columns in one statement
  // (only those a send can take): every row it plans to send must have been read.
  it('cuts batches at the byte budget, sends a row above it alone, quarantines one above the message limit, and keeps the order', async () => {
    const topic = `${stack.env.topicPrefix}relay-budget`;
    const admin = createKafka({ brokers: stack.env.brokers, clientId: 'relay-budget-spec' }).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    const sizes = [600, 600, 3000, 600, 40_000, 600];
    await h.query(
      `INSERT INTO outbox (topic, message_key, payload)
       SELECT $1, 'budget', 'row-' || g || ':' || repeat('x', ($2::int[])[g]) FROM generate_series(1, 6) g ORDER BY g`,
      [topic, sizes],
    );
    await h.waitUntil('every row but the oversized one published', async () => {
      const [r] = await h.query<{ left: string; quarantined: string }>(
        `SELECT count(*) FILTER (WHERE quarantined_at IS NULL)::text AS left, count(*) FILTER (WHERE quarantined_at IS NOT NULL)::text AS quarantined FROM outbox WHERE topic = $1`,
        [topic],
      );
      return r.left === '0' && r.quarantined === '1';
    });
    const sent = await readWholeTopic(stack.env.brokers, topic);
    expect(sent.map((m) => m.value.slice(0, m.value.indexOf(':')))).toEqual(['row-1', 'row-2', 'row-3', 'row-4', 'row-6']);
    const [q] = await h.query<{ payload: string; reason: string }>(`SELECT left(payload, 5) AS payload, quarantine_reason AS reason FROM outbox WHERE topic = $1`, [topic]);
    expect(q).toEqual({ payload: 'row-5', reason: expect.stringMatching(/^too_large: \d+ bytes > RELAY_MAX_MESSAGE_BYTES 32768$/) });
  });
});
