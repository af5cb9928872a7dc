import { Harness } from './support/harness';
import { exited, Stack } from './support/stack';
import { FAST_RECOVERY } from './support/effect-probes';

// flaky.record can look its effect up by idempotency key. A dispatcher killed after the effect
// and before the result is recorded leaves it for recovery, which asks the tool before calling
// it unknown: the decision ends effect_completed with the effect's output, and nothing reruns.
describe('a dispatcher killed after an effect its tool can look up', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('reconcile');
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('is reconciled as completed, with the output the tool reports', async () => {
    const dying = await stack.start('dispatcher', 'dispatcher-dying', {
      faults: { dispatcherCrashInsideTool: [{ decisionIdPrefix: 'crash:' }] },
      env: FAST_RECOVERY,
    });
    const [d] = await h.decisions('reconcile-run', 1, { decisionId: 'crash:reconcile', tool: 'flaky.record', payload: { key: 'r1', failTimes: 0 } });
    await h.client.send([d]);
    expect(await exited(dying)).toBe('SIGKILL');
    await stack.start('dispatcher', 'dispatcher-survivor', { env: FAST_RECOVERY });
    await h.waitUntil('the recovered final entry', async () => (await h.finalRows([d.decisionId])).length === 1);

    const [row] = await h.query<{ entry: string }>('SELECT entry FROM journal WHERE final_decision_id = $1', [d.decisionId]);
    const entry = JSON.parse(row.entry) as { effectBoundary: string; success: boolean; output: { effectId: string; calls: number } };
    expect([entry.effectBoundary, entry.success]).toEqual(['effect_completed', true]);
    const [fx] = await h.query<{ id: string; effects: string; calls: number }>(
      `SELECT (SELECT id::text FROM flaky_effects WHERE capability_id = c.capability_id) AS id,
              (SELECT count(*) FROM flaky_effects WHERE capability_id = c.capability_id)::text AS effects,
              (SELECT attempts FROM flaky_attempts a JOIN intents i ON i.idempotency_key = a.idempotency_key WHERE i.decision_id = $1) AS calls
       FROM capabilities c WHERE c.decision_id = $1`,
      [d.decisionId],
    );
    expect(fx).toEqual({ id: entry.output.effectId, effects: '1', calls: 1 });
    expect(entry.output.calls).toBe(1);
    const [effect] = await h.query<{ state: string }>('SELECT state FROM effects WHERE decision_id = $1', [d.decisionId]);
    expect(effect.state).toBe('effect_completed');
  });
});
