import { groupOf } from './support/environment';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// The same logical action (same tool, payload, principal, tenant, service and process: one
// idempotency key) decided twice, in two runs, so that two dispatchers of one group may hold the
// two intents at the same moment. notes.append does not dedupe by itself: the platform must.
describe('two decisions with one idempotency key on two dispatchers', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('onekey');
    await stack.start('authorizer', 'authorizer');
    for (const n of [1, 2]) {
      await stack.start('dispatcher', `dispatcher-${n}`, { env: { KAFKA_GROUP_ID: groupOf(stack.env, 'dispatcher'), DISPATCHER_ID: `d${n}` } });
    }
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('runs the tool once per key; the other decision ends with the same result, marked deduplicated', async () => {
    const PAIRS = 40;
    // Run ids chosen so that the pairs spread over partitions, and so over both dispatchers.
    const first = await h.decisions('onekey-a', PAIRS);
    const second = await h.decisions('onekey-b', PAIRS);
    first.forEach((d, i) => (d.payload = { text: `same action ${i}` }));
    second.forEach((d, i) => (d.payload = { text: `same action ${i}` }));
    await h.client.send([...first, ...second]);
    const ids = [...first, ...second].map((d) => d.decisionId);
    await h.waitUntil('every decision to end', async () => (await h.finalRows(ids)).length === 2 * PAIRS, 90_000);

    const notes = await h.query<{ text: string; n: string }>(`SELECT text, count(*)::text AS n FROM notes WHERE text LIKE 'same action %' GROUP BY text`);
    expect(notes).toHaveLength(PAIRS);
    expect(notes.filter((r) => r.n !== '1')).toEqual([]);

    const entries = await h.query<{ decision_id: string; entry: string }>('SELECT decision_id, entry FROM journal WHERE final_decision_id = ANY($1)', [ids]);
    const byId = new Map(entries.map((e) => [e.decision_id, JSON.parse(e.entry) as { effectBoundary: string; success: boolean; output?: unknown; deduplicatedOf?: string }]));
    for (let i = 0; i < PAIRS; i++) {
      const pair = [byId.get(first[i].decisionId)!, byId.get(second[i].decisionId)!];
      expect(pair.map((e) => [e.effectBoundary, e.success])).toEqual([
        ['effect_completed', true],
        ['effect_completed', true],
      ]);
      // Exactly one of the two ran; the other names it and carries its output.
      const ran = pair.filter((e) => e.deduplicatedOf === undefined);
      const copied = pair.filter((e) => e.deduplicatedOf !== undefined);
      expect([ran.length, copied.length]).toEqual([1, 1]);
      expect([first[i].decisionId, second[i].decisionId]).toContain(copied[0].deduplicatedOf);
      expect(copied[0].output).toEqual(ran[0].output);
    }
  });
});
