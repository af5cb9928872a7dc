import { Harness } from './support/harness';
import { Stack } from './support/stack';

describe('published outbox rows are pruned after the retention', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('prune');
    const env = { RELAY_RETENTION_MS: '0', RELAY_PRUNE_INTERVAL_MS: '200', RELAY_PRUNE_BATCH: '7' };
    await stack.start('authorizer', 'authorizer', { env });
    await stack.start('dispatcher', 'dispatcher', { env });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('deletes published rows in bounded batches and keeps the record tables whole', async () => {
    const decisions = await h.decisions('prune-run', 20);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === 20);
    await h.journal.waitFor(() => h.journal.finalEntriesFor(ids).size === 20, 30_000);
    await h.waitUntil('the outbox to be pruned', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox');
      return r.n === '0';
    });
    const [kept] = await h.query<{ intents: string; journal: string }>(
      `SELECT (SELECT count(*) FROM intents WHERE decision_id = ANY($1))::text AS intents,
              (SELECT count(*) FROM journal WHERE decision_id = ANY($1))::text AS journal`,
      [ids],
    );
    expect(kept).toEqual({ intents: '20', journal: '20' });
    // Every journal entry reached the topic before its row was pruned.
    expect(h.journal.finalEntriesFor(ids).size).toBe(20);
  });
});
