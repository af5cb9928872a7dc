import { readFileSync } from 'node:fs';
import { cli } from './support/admin-api';
import { Harness } from './support/harness';
import { Stack } from './support/stack';
import type { RunningApp } from './support/services';

const RECOVERY = { RECOVERY_GRACE_MS: '500', RECOVERY_INTERVAL_MS: '300' };

const stopped = (app: RunningApp): boolean => readFileSync(`/proc/${app.child.pid}/stat`, 'utf8').split(') ')[1]?.startsWith('T') ?? false;

// Seen in the chaos suite (seed 1, a dispatcher paused with 16 bodies in flight): recovery asked
// flaky.record about two bodies that had begun and not acted yet; the tool found no effect and
// said "none", recovery ended them effect_not_started, and the resumed bodies acted: two final
// entries said nothing happened where something had, and their results were dropped. A tool's
// "none" must mean nothing can still land (libs/tool-sdk); for a body that began and may be
// paused, the demo tools cannot know that, so they answer cannot_tell (ADR 0056).
describe('a paused body whose tool has no effect for it yet when recovery asks', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('foundnothing');
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const entries = async (decisionId: string) =>
    (await h.query<{ entry: string }>('SELECT entry FROM journal WHERE decision_id = $1 ORDER BY journal.journal_seq', [decisionId])).map(
      (r) => JSON.parse(r.entry) as Record<string, unknown>,
    );
  const effectsOf = async (decisionId: string) =>
    Number(
      (await h.query<{ n: string }>('SELECT count(*)::text AS n FROM flaky_effects f JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1', [decisionId]))[0]
        .n,
    );

  it('ends unknown, not "not started", and the resumed body’s effect is recorded as its late result, never run again', async () => {
    const pausing = await stack.start('dispatcher', 'dispatcher-pausing', {
      faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'flaky:', at: 'after_marker', signal: 'SIGSTOP' }] },
      env: RECOVERY,
    });
    const [d] = await h.decisions('foundnothing-run', 1, { decisionId: 'flaky:1', tool: 'flaky.record', payload: { key: 'flaky:1', failTimes: 0 } });
    await h.client.send([d]);
    await h.waitUntil('the dispatcher to stop itself inside the body', () => stopped(pausing));
    expect(await effectsOf(d.decisionId)).toBe(0);

    const survivor = await stack.start('dispatcher', 'dispatcher-survivor', { env: RECOVERY });
    await h.waitUntil('recovery to close the effect', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0]).toMatchObject({ effect_boundary: 'effect_state_unknown', reason_code: 'dispatcher_lost_during_effect' });

    pausing.child.kill('SIGCONT');
    await h.waitUntil('the late result of the body', async () =>
      (await entries(d.decisionId)).some((e) => e.kind === 'late_tool_result' && e.effectBoundary === 'effect_completed'),
    );
    expect(await effectsOf(d.decisionId)).toBe(1);
    expect((await h.finalRows([d.decisionId])).length).toBe(1);
    // Unknown is never retried: no second decision runs the action.
    expect((await h.query<{ n: string }>('SELECT count(*)::text AS n FROM retries WHERE parent_decision_id = $1', [d.decisionId]))[0].n).toBe('0');
    expect(survivor.child.exitCode).toBeNull();
    const verify = await cli(stack.env, ['verify']);
    expect([verify.code, verify.out.intact]).toEqual([0, true]);
  });
});
