import { Harness } from './support/harness';
import { Stack } from './support/stack';

// Nothing reads a published outbox row again, so the relay deletes it in the transaction that saw
// the broker's acknowledgement (ADR 0048) instead of marking it and pruning it 7 days later. Rows
// a relay from before that change marked published are still pruned after RELAY_RETENTION_MS.
describe('published outbox rows are deleted at publish', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('prune');
    // The default retention (7 days) keeps every row an old relay marked in this spec's lifetime.
    const env = { RELAY_PRUNE_INTERVAL_MS: '200', RELAY_PRUNE_BATCH: '7' };
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
});
