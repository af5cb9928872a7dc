import { adminApi, cli } from './support/admin-api';
import { Harness } from './support/harness';
import { Stack } from './support/stack';
import { FAST_RECOVERY, isStopped, notesOf, journalEntriesOf } from './support/effect-probes';

// A dispatcher paused (SIGSTOP) inside a body that began: recovery calls it unknown, but the body
// may still run. "Not happened" is refused until it can no longer run, and its idempotency key
// stays held; when the dispatcher resumes (SIGCONT) and the body acts, its late result is
// journaled (non-final) and "not happened" stays refused (ADR 0056).
describe('an operator resolving an unknown effect whose body may still run', () => {
  let stack: Stack;
  let h: Harness;
  let api: ReturnType<typeof adminApi>;
  beforeAll(async () => {
    stack = await Stack.create('stillrun');
    api = adminApi(await stack.start('authorizer', 'authorizer'));
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('refuses "not happened" while the paused body may run, keeps the key held, and journals the late result', async () => {
    const pausing = await stack.start('dispatcher', 'dispatcher-pausing', {
      faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'slow:', at: 'after_marker', signal: 'SIGSTOP' }] },
      env: FAST_RECOVERY,
    });
    const [d] = await h.decisions('stillrun-run', 1, { decisionId: 'slow:1' });
    await h.client.send([d]);
    await h.waitUntil('the dispatcher to stop itself inside the body', () => isStopped(pausing));
    expect(await notesOf(h, d.decisionId)).toBe(0);

    await stack.start('dispatcher', 'dispatcher-survivor', { env: FAST_RECOVERY });
    await h.waitUntil('recovery to close the effect unknown', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0]).toMatchObject({ effect_boundary: 'effect_state_unknown', reason_code: 'dispatcher_lost_during_effect' });

    const olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const path = `/admin/effects/${encodeURIComponent(d.decisionId)}/resolve`;
    const notHappened = { outcome: 'not_happened', note: 'no note in the table yet' };
    expect(await api('POST', path, olga, notHappened)).toMatchObject({ status: 409, body: { error: 'effect_may_still_run' } });
    const held = async () => (await h.query<{ state: string; live_key: string | null }>('SELECT state, live_key FROM effects WHERE decision_id = $1', [d.decisionId]))[0];
    expect(await held()).toEqual({ state: 'effect_state_unknown', live_key: expect.any(String) });

    // Resumed, the body acts: its result is late, and recorded as such.
    pausing.child.kill('SIGCONT');
    await h.waitUntil('the late result of the body', async () =>
      (await journalEntriesOf(h, d.decisionId)).some((e) => e.kind === 'late_tool_result' && e.effectBoundary === 'effect_completed'),
    );
    expect(await notesOf(h, d.decisionId)).toBe(1);
    expect((await h.finalRows([d.decisionId])).length).toBe(1);
    expect(await api('POST', path, olga, notHappened)).toMatchObject({ status: 409, body: { error: 'late_result_completed' } });
    expect((await held()).live_key).not.toBeNull();

    const done = await api('POST', path, olga, { outcome: 'completed', note: 'its late result and the note' });
    expect(done).toMatchObject({ status: 200, body: { decisionId: d.decisionId, effectBoundary: 'effect_completed' } });
    const journal = await journalEntriesOf(h, d.decisionId);
    expect(journal[0]).toMatchObject({ kind: 'tool_result', effectBoundary: 'effect_state_unknown' });
    const late = journal.filter((e) => e.kind === 'late_tool_result');
    expect(late.at(-1)).toMatchObject({ effectBoundary: 'effect_completed', success: true, capabilityId: journal[0].capabilityId });
    expect(journal.at(-1)).toMatchObject({ kind: 'operator_action', effectBoundary: 'effect_completed' });

    const replay = await cli(stack.env, ['replay', 'stillrun-run']);
    expect([replay.code, replay.out.matches]).toEqual([0, true]);
    const verify = await cli(stack.env, ['verify']);
    expect([verify.code, verify.out.intact]).toEqual([0, true]);
  });
});
