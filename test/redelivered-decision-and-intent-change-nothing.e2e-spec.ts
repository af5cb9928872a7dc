import { groupOf, sharedEnvironment } from './support/environment';
import { Harness } from './support/harness';

describe('redelivered decisions and intents change nothing', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await new Harness(sharedEnvironment()).start();
  });
  afterAll(() => h.close());

  const counts = async (decisionId: string) => {
    const [row] = await h.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM decision_inbox WHERE decision_id = $1)::text AS inbox,
              (SELECT count(*) FROM intents WHERE decision_id = $1)::text AS intents,
              (SELECT count(*) FROM journal WHERE decision_id = $1)::text AS journal,
              (SELECT count(*) FROM effects WHERE decision_id = $1)::text AS effects,
              (SELECT count(*) FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1)::text AS notes`,
      [decisionId],
    );
    return row;
  };

  it('produces one outcome for a decision delivered twice and one effect for an intent delivered twice', async () => {
    const [d] = await h.decisions('redelivery-run', 1);
    const body = JSON.stringify({ specVersion: 1, ...d });
    await h.produceRaw(h.topics.decisions, d.runId, body);
    await h.waitUntil('the first outcome', async () => (await h.finalRows([d.decisionId])).length === 1);
    const before = await counts(d.decisionId);
    expect(before).toEqual({ inbox: '1', intents: '1', journal: '1', effects: '1', notes: '1' });

    // The same decision again: the authorizer must handle it (commit past it) and change nothing.
    const again = await h.produceRaw(h.topics.decisions, d.runId, body);
    await h.waitForGroupPast(groupOf(h.env, 'authorizer'), h.topics.decisions, again.partition, again.offset);

    // The same signed intent message, twice more, straight onto the intents topic.
    const [intent] = await h.query<{ payload: string }>(
      // The signed message as published; its outbox row is deleted once sent (ADR 0048).
      `SELECT message AS payload FROM intents WHERE decision_id = $1`,
      [d.decisionId],
    );
    await h.produceRaw(h.topics.intents, d.runId, intent.payload);
    const last = await h.produceRaw(h.topics.intents, d.runId, intent.payload);
    await h.waitForGroupPast(groupOf(h.env, 'dispatcher'), h.topics.intents, last.partition, last.offset);

    expect(await counts(d.decisionId)).toEqual(before);
  });

  it('dead-letters the same decisionId with another body (decision_conflict) and changes nothing', async () => {
    const [d] = await h.decisions('conflict-run', 1);
    await h.client.send([d]);
    await h.waitUntil('the first outcome', async () => (await h.finalRows([d.decisionId])).length === 1);
    const before = await counts(d.decisionId);

    const other = { ...d, payload: { text: 'a different body' } };
    const at = await h.produceRaw(h.topics.decisions, d.runId, JSON.stringify({ specVersion: 1, ...other }));
    await h.journal.waitFor(
      () => h.journal.deadLetters.some((r) => r.offset === at.offset && r.partition === at.partition && r.sourceTopic === h.topics.decisions),
      30_000,
    );
    const dlq = h.journal.deadLetters.find((r) => r.offset === at.offset && r.partition === at.partition && r.sourceTopic === h.topics.decisions);
    expect(dlq?.reasonCode).toBe('decision_conflict');
    expect(await counts(d.decisionId)).toEqual(before);
  });
});
