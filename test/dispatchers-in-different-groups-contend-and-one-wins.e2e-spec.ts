import { groupOf } from './support/environment';
import { Harness } from './support/harness';
import { metric, Stack } from './support/stack';
import type { RunningApp } from './support/services';

// Three dispatchers in three consumer groups all receive every intent, and every intent is on
// the topic twice: only the conditional UPDATE (activated -> consumed) decides who runs the tool.
describe('dispatchers in different consumer groups contend for the same intents', () => {
  let stack: Stack;
  let h: Harness;
  let dispatchers: RunningApp[];
  beforeAll(async () => {
    stack = await Stack.create('contend');
    await stack.start('authorizer', 'authorizer');
    dispatchers = [];
    for (const n of [1, 2, 3]) {
      dispatchers.push(
        await stack.start('dispatcher', `dispatcher-${n}`, { env: { KAFKA_GROUP_ID: `${groupOf(stack.env, 'dispatcher')}-${n}`, DISPATCHER_ID: `d${n}` } }),
      );
    }
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('runs each tool exactly once: effect rows equal capabilities, and the losers are counted', async () => {
    const N = 90;
    const decisions = (await Promise.all(Array.from({ length: 6 }, (_, r) => h.decisions(`contend-run-${r}`, N / 6)))).flat();
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('every intent recorded', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM intents WHERE decision_id = ANY($1)', [ids]);
      return Number(r.n) === N;
    });
    // Inject a duplicate of every genuine (signed) intent.
    const intents = await h.query<{ run_id: string; message: string }>('SELECT run_id, message FROM intents WHERE decision_id = ANY($1)', [ids]);
    await h.client.sendRaw(h.topics.intents, intents.map((i) => ({ key: i.run_id, value: i.message })));

    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === N);
    // Each dispatcher has seen both copies of everything: 6 attempts per capability, 1 winner.
    await h.waitUntil('every dispatcher to have handled every copy', async () => {
      const lost = await Promise.all(dispatchers.map((d) => metric(d, 'arvis_consumption_lost_total')));
      const won = await Promise.all(dispatchers.map((d) => metric(d, 'arvis_effects_executed_total')));
      return won.reduce((a, b) => a + b, 0) === N && lost.reduce((a, b) => a + b, 0) >= 2 * N;
    });
    const lost = await Promise.all(dispatchers.map((d) => metric(d, 'arvis_consumption_lost_total')));
    const won = await Promise.all(dispatchers.map((d) => metric(d, 'arvis_effects_executed_total')));
    console.log(`contention: ${N} capabilities, executions per dispatcher ${won.join('/')}, lost consumption attempts ${lost.join('/')} (total ${lost.reduce((a, b) => a + b, 0)})`);

    const [counts] = await h.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = ANY($1))::text AS notes,
              (SELECT count(DISTINCT n.capability_id) FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = ANY($1))::text AS distinct_notes,
              (SELECT count(*) FROM effects WHERE decision_id = ANY($1))::text AS effects,
              (SELECT count(*) FROM capabilities WHERE decision_id = ANY($1) AND state = 'consumed')::text AS consumed`,
      [ids],
    );
    expect(counts).toEqual({ notes: String(N), distinct_notes: String(N), effects: String(N), consumed: String(N) });
    const rows = await h.finalRows(ids);
    expect(rows.every((r) => r.kind === 'tool_result' && r.effect_boundary === 'effect_completed')).toBe(true);
  });
});
