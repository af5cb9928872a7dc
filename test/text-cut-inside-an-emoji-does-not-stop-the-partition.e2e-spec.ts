import { Harness } from './support/harness';
import { Stack } from './support/stack';

// A refusal message cut at N UTF-16 units can end in half an emoji (a lone surrogate), which
// RFC 8785 refuses when the refusal is journaled. Seen: the authorizer exited 70 on the same
// offset again and again, and the next decision on that key never ran.
describe('text cut inside an emoji does not stop the partition', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('emojicut');
    await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('refuses the decision with one final entry, keeps running, and runs the next decision on the same key', async () => {
    const [bad, next] = await h.decisions('emojicut-run', 2);
    // One extra key of 469 "a" and an emoji: zod's message puts the emoji's first half at unit 500.
    bad.payload = { ...bad.payload, [`${'a'.repeat(469)}😀`]: 1 };
    await h.client.send([bad, next]);

    await h.waitUntil('both decisions to end', async () => (await h.finalRows([bad.decisionId, next.decisionId])).length === 2, 90_000);
    const rows = new Map((await h.finalRows([bad.decisionId, next.decisionId])).map((r) => [r.decision_id, r]));
    expect([rows.get(bad.decisionId)?.kind, rows.get(bad.decisionId)?.reason_code]).toEqual(['authorization_refusal', 'input_schema_violation']);
    expect(rows.get(next.decisionId)).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    const [entry] = await h.query<{ entry: string }>('SELECT entry FROM journal WHERE final_decision_id = $1', [bad.decisionId]);
    const message: string = JSON.parse(entry.entry).error.message;
    // Cut by code point: no half emoji left behind, and no longer than 500 code points.
    expect(message).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect([...message].length).toBeLessThanOrEqual(500);
    expect(stack.apps[0].child.exitCode).toBeNull();
  });
});
