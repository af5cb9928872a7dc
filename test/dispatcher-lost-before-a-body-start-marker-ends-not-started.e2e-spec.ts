import { readFileSync } from 'node:fs';
import { Harness } from './support/harness';
import { exited, Stack } from './support/stack';
import { stopApp, type RunningApp } from './support/services';
import { FAST_RECOVERY, isStopped, notesOf } from './support/effect-probes';

// A started effect whose body never wrote its start marker never began: recovery takes the
// marker's slot, so the body cannot begin afterwards, and the effect ends effect_not_started
// (retried) instead of effect_state_unknown. One whose body began and whose tool can tell
// (notes.append, by its idempotency key) ends with what the tool says (ADR 0056).
describe('a dispatcher lost between effect_started and the body-start marker', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('nomarker');
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const retryCompleted = async (parent: string) =>
    (
      await h.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM retries r JOIN journal j ON j.final_decision_id = r.decision_id
         WHERE r.parent_decision_id = $1 AND j.effect_boundary = 'effect_completed'`,
        [parent],
      )
    )[0].n === '1';
  let survivor: RunningApp;

  it('killed (SIGKILL): the body that never began ends not started and is retried; the one that acted is reconciled completed', async () => {
    const before = await stack.start('dispatcher', 'dispatcher-before-marker', {
      faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'never:', at: 'before_marker', signal: 'SIGKILL' }] },
      env: FAST_RECOVERY,
    });
    const [never] = await h.decisions('nomarker-run', 1, { decisionId: 'never:1' });
    await h.client.send([never]);
    expect(await exited(before)).toBe('SIGKILL');
    expect((await h.query<{ state: string }>('SELECT state FROM effects WHERE decision_id = $1', [never.decisionId]))[0].state).toBe('effect_started');

    const inside = await stack.start('dispatcher', 'dispatcher-inside-tool', { faults: { dispatcherCrashInsideTool: [{ decisionIdPrefix: 'acted:' }] }, env: FAST_RECOVERY });
    const [acted] = await h.decisions('nomarker-run', 1, { decisionId: 'acted:1', causalId: 'acted', payload: { text: 'acted', ref: 'acted:1' } });
    await h.client.send([acted]);
    expect(await exited(inside)).toBe('SIGKILL');
    expect(await notesOf(h, acted.decisionId)).toBe(1);

    survivor = await stack.start('dispatcher', 'dispatcher-survivor', { env: FAST_RECOVERY });
    await h.waitUntil('both final entries', async () => (await h.finalRows([never.decisionId, acted.decisionId])).length === 2);
    const finals = new Map((await h.finalRows([never.decisionId, acted.decisionId])).map((f) => [f.decision_id, f]));
    expect(finals.get(never.decisionId)).toMatchObject({ effect_boundary: 'effect_not_started', reason_code: 'dispatcher_lost_before_effect' });
    expect(finals.get(acted.decisionId)).toMatchObject({ effect_boundary: 'effect_completed', reason_code: null });
    const [entry] = await h.query<{ entry: string }>('SELECT entry FROM journal WHERE final_decision_id = $1', [acted.decisionId]);
    const [note] = await h.query<{ id: string }>('SELECT n.id::text FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1', [acted.decisionId]);
    expect((JSON.parse(entry.entry) as { output: unknown }).output).toEqual({ noteId: note.id });

    // The body that never began ran nowhere; its retry runs once.
    expect(await notesOf(h, never.decisionId)).toBe(0);
    await h.waitUntil('the retry of the body that never began to complete', () => retryCompleted(never.decisionId));
    expect(await notesOf(h, acted.decisionId)).toBe(1);
  });

  it('paused (SIGSTOP) past its deadline, then resumed (SIGCONT): the body does not run after recovery ended it not started', async () => {
    await stopApp(survivor); // it would take the decision itself
    const pausing = await stack.start('dispatcher', 'dispatcher-pausing', {
      faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'paused:', at: 'before_marker', signal: 'SIGSTOP' }] },
      env: FAST_RECOVERY,
    });
    const [paused] = await h.decisions('nomarker-run', 1, { decisionId: 'paused:1', causalId: 'paused', payload: { text: 'paused', ref: 'paused:1' } });
    await h.client.send([paused]);
    await h.waitUntil('the dispatcher to stop itself before the marker', () => isStopped(pausing));

    survivor = await stack.start('dispatcher', 'dispatcher-survivor-2', { env: FAST_RECOVERY });
    await h.waitUntil('recovery to close the effect', async () => (await h.finalRows([paused.decisionId])).length === 1);
    expect((await h.finalRows([paused.decisionId]))[0]).toMatchObject({ effect_boundary: 'effect_not_started', reason_code: 'dispatcher_lost_before_effect' });

    pausing.child.kill('SIGCONT');
    await h.waitUntil('the resumed dispatcher to drop the result of the body it did not run', () =>
      readFileSync(pausing.logFile, 'utf8').includes('arrived after recovery had closed them'),
    );
    expect(await notesOf(h, paused.decisionId)).toBe(0);
    expect((await h.finalRows([paused.decisionId])).length).toBe(1);
    await h.waitUntil('the retry to complete', () => retryCompleted(paused.decisionId));
    expect(survivor.child.exitCode).toBeNull();
  });
});
