import { Harness } from './support/harness';
import { exited, metric, Stack } from './support/stack';
import { FAST_RECOVERY } from './support/effect-probes';

// The crash window inside a tool: its body began (the start marker is committed) and no result
// was recorded; notes.append finds no note for its key, and a body that began may still write
// one, so it cannot tell (a body that never began ends not started instead, ADR 0056).
describe('a dispatcher killed inside a tool', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('toolcrash');
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('leaves effect_state_unknown after recovery, and the tool never runs a second time', async () => {
    const dying = await stack.start('dispatcher', 'dispatcher-dying', {
      faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'crash:', at: 'after_marker', signal: 'SIGKILL' }] },
      env: FAST_RECOVERY,
    });
    const [d] = await h.decisions('toolcrash-run', 1, { decisionId: 'crash:1' });
    await h.client.send([d]);
    expect(await exited(dying)).toBe('SIGKILL');
    const notes = async () =>
      (await h.query<{ n: string }>(
        'SELECT count(*)::text AS n FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1',
        [d.decisionId],
      ))[0].n;
    expect(await notes()).toBe('0'); // it died after the marker, before the note
    expect((await h.query<{ n: string }>('SELECT count(*)::text AS n FROM tool_body_starts m JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1 AND NOT m.recovery_fence', [d.decisionId]))[0].n).toBe('1');
    expect((await h.query<{ state: string }>('SELECT state FROM effects WHERE decision_id = $1', [d.decisionId]))[0].state).toBe('effect_started');

    // Another dispatcher of the same group gets the uncommitted intent again, and recovers.
    const survivor = await stack.start('dispatcher', 'dispatcher-survivor', { env: FAST_RECOVERY });
    await h.waitUntil('the recovered final entry', async () => (await h.finalRows([d.decisionId])).length === 1);
    const [entry] = await h.finalRows([d.decisionId]);
    expect([entry.kind, entry.effect_boundary, entry.reason_code]).toEqual(['tool_result', 'effect_state_unknown', 'dispatcher_lost_during_effect']);
    await h.waitUntil('the redelivered intent to be refused', async () => (await metric(survivor, 'arvis_consumption_lost_total')) >= 1);
    expect(await notes()).toBe('0');
    expect((await h.query<{ state: string }>('SELECT state FROM effects WHERE decision_id = $1', [d.decisionId]))[0].state).toBe('effect_state_unknown');

    // The survivor goes on working normally.
    const [next] = await h.decisions('toolcrash-run-2', 1);
    await h.client.send([next]);
    await h.waitUntil('a later decision to complete', async () => (await h.finalRows([next.decisionId])).length === 1);
    expect((await h.finalRows([next.decisionId]))[0].effect_boundary).toBe('effect_completed');
  });
});
