import { sharedEnvironment } from './support/environment';
import { Harness } from './support/harness';

// A message whose identity token does not verify is attributable to no one: it must not claim
// its decisionId (the genuine decision with that id still runs), and it leaves no inbox row and
// no journal entry, only a dead letter that names the decisionId it carried.
describe('a forged decision cannot squat a genuine decision id', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await new Harness(sharedEnvironment()).start();
  });
  afterAll(() => h.close());

  it('runs the genuine decision with id X after a forged one with id X, and dead-letters the forged one as identity_invalid', async () => {
    const [genuine] = await h.decisions('squat-run', 1, { decisionId: 'squat:X' });
    // Same id, another body (the attacker's payload), a token whose signature does not verify.
    const forged = { ...genuine, payload: { text: 'forged', ref: 'squat' }, identity: `${genuine.identity.slice(0, -4)}AAAA` };
    const forgedAt = await h.produceRaw(h.topics.decisions, genuine.runId, JSON.stringify({ specVersion: 1, ...forged }));
    await h.client.send([genuine]);

    await h.waitUntil('the genuine decision to end', async () => (await h.finalRows([genuine.decisionId])).length === 1);
    expect(await h.finalRows([genuine.decisionId])).toEqual([
      expect.objectContaining({ kind: 'tool_result', effect_boundary: 'effect_completed', reason_code: null }),
    ]);
    const deadLetterOf = () =>
      h.journal.deadLetters.find((r) => r.sourceTopic === h.topics.decisions && r.partition === forgedAt.partition && r.offset === forgedAt.offset);
    expect(await h.journal.waitFor(() => !!deadLetterOf(), 30_000)).toBe(true);

    expect(deadLetterOf()).toMatchObject({ reasonCode: 'identity_invalid', decisionId: genuine.decisionId });
    // The genuine one is not refused as a conflict, and nothing else was dead-lettered for X.
    const aboutX = (r: (typeof h.journal.deadLetters)[number]) =>
      (r as { decisionId?: string }).decisionId === genuine.decisionId || (r.reasonCode === 'decision_conflict' && r.detail.includes(genuine.decisionId));
    expect(h.journal.deadLetters.filter(aboutX))
      .toEqual([deadLetterOf()]);
    // No trace of the forged message in the record: one inbox row (the genuine body), no refusal.
    const inbox = await h.query<{ status: string; body: string }>('SELECT status, body FROM decision_inbox WHERE decision_id = $1', [genuine.decisionId]);
    expect(inbox.map((r) => [r.status, JSON.parse(r.body).payload.text])).toEqual([['authorized', 'note 0']]);
    const entries = await h.query<{ kind: string; tenant: string }>('SELECT kind, tenant FROM journal WHERE decision_id = $1', [genuine.decisionId]);
    expect(entries.filter((e) => e.tenant !== 'acme' || e.kind.endsWith('_refusal'))).toEqual([]);
  });
});
