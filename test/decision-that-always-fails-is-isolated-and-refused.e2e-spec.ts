import { Harness } from './support/harness';
import { Stack } from './support/stack';

// A decision whose handling fails every time (here a fault point) must not hold its partition:
// the slice is narrowed down by halves to that one decision, which ends with one final refusal
// (decision_unprocessable) and a DLQ record; the decisions around it run; the authorizer stays up.
describe('a decision that always fails is isolated and refused', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('isolate');
    await stack.start('authorizer', 'authorizer', { faults: { decisionHandlingFails: [{ decisionIdPrefix: 'isolate:poison' }] } });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('ends the failing decision with one decision_unprocessable refusal and a DLQ record, and runs the ones before and after it', async () => {
    const [before, poison, after] = await h.decisions('isolate-run', 3);
    poison.decisionId = 'isolate:poison';
    await h.client.send([before, poison, after]);

    const ids = [before.decisionId, poison.decisionId, after.decisionId];
    await h.waitUntil('all three to end', async () => (await h.finalRows(ids)).length === 3, 90_000);
    const rows = new Map((await h.finalRows(ids)).map((r) => [r.decision_id, r]));
    expect([rows.get(poison.decisionId)?.kind, rows.get(poison.decisionId)?.reason_code]).toEqual(['authorization_refusal', 'decision_unprocessable']);
    expect(rows.get(before.decisionId)).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    expect(rows.get(after.decisionId)).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    expect(await h.journal.waitFor(() => !!h.journal.deadLettersFor([poison.decisionId]).get(poison.decisionId), 30_000)).toBe(true);
    expect(h.journal.deadLettersFor([poison.decisionId]).get(poison.decisionId)).toMatchObject({ reasonCode: 'decision_unprocessable' });
    // Its inbox row makes a redelivery a no-op rather than a second isolation.
    expect(await h.query('SELECT status FROM decision_inbox WHERE decision_id = $1', [poison.decisionId])).toEqual([{ status: 'refused' }]);
    expect(stack.apps[0].child.exitCode).toBeNull();
  });
});
