import type { IntentMessage } from '@arvis/contracts';
import { Harness } from './support/harness';
import { exited, Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// The relay's crash window: the broker acknowledged a batch, the rows are not yet deleted (ADR 0048).
describe('a relay killed between publish and mark', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('relaykill');
    // The apps' own relays are off: only the relays this spec starts publish.
    await stack.start('authorizer', 'authorizer', { relay: false });
    await stack.start('dispatcher', 'dispatcher', { relay: false });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('causes duplicates on the topic at most, never a loss, and each effect runs once', async () => {
    const N = 30;
    const decisions = (await Promise.all([0, 1, 2].map((r) => h.decisions(`relaykill-run-${r}`, N / 3)))).flat();
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('every intent recorded', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM intents WHERE decision_id = ANY($1)', [ids]);
      return Number(r.n) === N;
    });

    const crashing = await stack.start('relay', 'relay-crashing', {
      faults: { relayCrashAfterPublish: true },
      waitReady: false, // it dies on its first batch, before it would report ready
    });
    expect(await exited(crashing)).toBe('SIGKILL');
    const [unmarked] = await h.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM outbox WHERE topic = $1 AND published_at IS NULL',
      [h.topics.intents],
    );
    expect(Number(unmarked.n)).toBe(N); // the broker has a batch of them; none is deleted
    const crashedBatch = (await readWholeTopic(h.env.brokers, h.topics.intents)).length;
    expect(crashedBatch).toBeGreaterThan(0); // acknowledged before the kill

    await stack.start('relay', 'relay-healthy');
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === N);
    // A final entry can come before the healthy relay's own copies are all acknowledged: a send that
    // failed part-way stores some partitions' share and is sent again. Its rows go once acknowledged.
    await h.waitUntil('the healthy relay acknowledged every intent', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE topic = $1', [h.topics.intents]);
      return Number(r.n) === 0;
    });

    const onTopic = (await readWholeTopic(h.env.brokers, h.topics.intents)).map((r) => JSON.parse(r.value) as IntentMessage);
    const perIntent = new Map<string, number>();
    for (const m of onTopic) perIntent.set(m.intentId, (perIntent.get(m.intentId) ?? 0) + 1);
    expect(perIntent.size).toBe(N); // nothing lost
    expect(onTopic.length).toBeGreaterThanOrEqual(crashedBatch + N); // the crashed batch was published again, all of it
    const [effects] = await h.query<{ notes: string; effects: string }>(
      `SELECT (SELECT count(*) FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = ANY($1))::text AS notes,
              (SELECT count(*) FROM effects WHERE decision_id = ANY($1))::text AS effects`,
      [ids],
    );
    expect(effects).toEqual({ notes: String(N), effects: String(N) });
    const rows = await h.finalRows(ids);
    expect(rows.every((r) => r.kind === 'tool_result' && r.effect_boundary === 'effect_completed')).toBe(true);
  });
});
