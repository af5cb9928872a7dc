import { Harness } from './support/harness';
import { exited, Stack } from './support/stack';

const RECOVERY = { RECOVERY_GRACE_MS: '500', RECOVERY_INTERVAL_MS: '300', TOOL_CONCURRENCY: '2' };

// Twenty intents of one run reach a dispatcher in one slice; it dies inside the tool of the
// sixth. Only the bodies in flight at that moment may end unknown: the ones that finished keep
// their results, and the ones that never started end effect_not_started and are retried.
describe('a dispatcher killed in the middle of a slice', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('midslice');
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('leaves at most the bodies then in flight unknown', async () => {
    const decisions = await h.decisions('midslice-run', 20);
    decisions[5].decisionId = 'crash:midslice-5';
    await h.client.send(decisions);
    await h.waitUntil('twenty intents published', async () => {
      const [r] = await h.query<{ n: string }>(
        // A published row is deleted (ADR 0048): the intent is there and its outbox row is gone.
        `SELECT count(*)::text AS n FROM intents i
         WHERE i.run_id = $1 AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.seq = i.durable_position)`,
        ['midslice-run'],
      );
      return r.n === '20';
    });
    const dying = await stack.start('dispatcher', 'dispatcher-dying', {
      faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'crash:', at: 'after_marker', signal: 'SIGKILL' }] },
      env: RECOVERY,
      // The intents are already waiting: it may reach the crash before it would report ready.
      waitReady: false,
    });
    expect(await exited(dying)).toBe('SIGKILL');

    await stack.start('dispatcher', 'dispatcher-survivor', { env: RECOVERY });
    const ids = decisions.map((d) => d.decisionId);
    await h.waitUntil('twenty final entries', async () => (await h.finalRows(ids)).length === 20);
    const finals = await h.finalRows(ids);
    const unknown = finals.filter((f) => f.effect_boundary === 'effect_state_unknown');
    const notStarted = finals.filter((f) => f.effect_boundary === 'effect_not_started');
    // Bodies run two at a time: at most two were in flight at the kill.
    expect(unknown.length).toBeGreaterThanOrEqual(1);
    expect(unknown.length).toBeLessThanOrEqual(2);
    expect(unknown.map((u) => u.reason_code)).toEqual(unknown.map(() => 'dispatcher_lost_during_effect'));
    expect(notStarted.length).toBeGreaterThan(0);
    expect(new Set(notStarted.map((n) => n.reason_code))).toEqual(new Set(['dispatcher_lost_before_effect']));
    expect(finals.filter((f) => f.effect_boundary === 'effect_completed').length).toBe(20 - unknown.length - notStarted.length);

    // Nothing ran twice, and every body that never started ran once, as a retry.
    const perCapability = await h.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM notes WHERE capability_id IS NOT NULL GROUP BY capability_id HAVING count(*) > 1',
    );
    expect(perCapability).toEqual([]);
    await h.waitUntil('the retries of the bodies that never started to complete', async () => {
      const [r] = await h.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM retries r JOIN journal j ON j.final_decision_id = r.decision_id
         WHERE r.parent_decision_id = ANY($1) AND j.effect_boundary = 'effect_completed'`,
        [notStarted.map((n) => n.decision_id)],
      );
      return Number(r.n) === notStarted.length;
    });
    const [{ n: notes }] = await h.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM notes n JOIN capabilities c USING (capability_id) JOIN intents i ON i.intent_id = c.intent_id
       WHERE i.run_id = 'midslice-run'`,
    );
    // The completed, the unknown (they may have acted) and the retried: never more than one per decision.
    expect(Number(notes)).toBeLessThanOrEqual(20);
    expect(Number(notes)).toBeGreaterThanOrEqual(20 - unknown.length);
  });
});
