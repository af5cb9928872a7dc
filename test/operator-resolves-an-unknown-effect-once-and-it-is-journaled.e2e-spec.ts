import { adminApi, cli } from './support/admin-api';
import { Harness } from './support/harness';
import { exited, Stack } from './support/stack';
import { FAST_RECOVERY, journalEntriesOf } from './support/effect-probes';

// A body lost mid-run ends effect_state_unknown (ADR 0011); the operator checks the outside world
// and resolves it through the admin API (ADR 0036). The decision keeps its one final entry; the
// resolution is one non-final operator_action entry after it, carrying the true outcome and the
// operator, written with the effects row's move, once.
describe('an operator resolving an unknown effect', () => {
  let stack: Stack;
  let h: Harness;
  let api: ReturnType<typeof adminApi>;
  beforeAll(async () => {
    stack = await Stack.create('resolve');
    // The dispatcher is killed, not paused: its body cannot run past the deadline (ADR 0056).
    api = adminApi(await stack.start('authorizer', 'authorizer', { env: { EFFECT_MAX_OVERRUN_MS: '0' } }));
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('journals the true outcome once, after the final effect_state_unknown, naming the operator', async () => {
    const dying = await stack.start('dispatcher', 'dispatcher-dying', { faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'lost:', at: 'after_marker', signal: 'SIGKILL' }] }, env: FAST_RECOVERY });
    const [d] = await h.decisions('resolve-run', 1, { decisionId: 'lost:1' });
    await h.client.send([d]);
    expect(await exited(dying)).toBe('SIGKILL');
    await stack.start('dispatcher', 'dispatcher-survivor', { env: FAST_RECOVERY });
    await h.waitUntil('recovery to close the effect unknown', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0]).toMatchObject({ effect_boundary: 'effect_state_unknown', reason_code: 'dispatcher_lost_during_effect' });
    const [done] = await h.decisions('resolve-run', 1, { decisionId: 'done:1', causalId: 'done', payload: { text: 'fine', ref: 'done:1' } });
    await h.client.send([done]);
    await h.waitUntil('a normal decision to complete', async () => (await h.finalRows([done.decisionId])).length === 1);

    const olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const path = `/admin/effects/${encodeURIComponent(d.decisionId)}/resolve`;
    const found = { outcome: 'completed', note: 'the note is in the notes table (id checked by hand)' };
    expect((await api('POST', path, await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] }), found)).status).toBe(403);
    expect(await api('POST', path, olga, { outcome: 'completed' })).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    expect(await api('POST', path, await h.token({ principal: 'erin', tenant: 'globex', roles: ['admin'] }), found)).toMatchObject({ status: 403, body: { error: 'other_tenant' } });
    expect(await api('POST', '/admin/effects/no-such-decision/resolve', olga, found)).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await api('POST', `/admin/effects/${encodeURIComponent(done.decisionId)}/resolve`, olga, found)).toMatchObject({ status: 409, body: { error: 'not_unknown' } });

    // Two operators at once: exactly one resolution lands.
    const [a, b] = await Promise.all([api('POST', path, olga, found), api('POST', path, olga, { outcome: 'not_happened', note: 'second opinion' })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? a : b;
    const boundary = winner === a ? 'effect_completed' : 'effect_not_started';
    expect(winner.body).toEqual({ decisionId: d.decisionId, effectBoundary: boundary, journalSeq: expect.any(String), journalChain: 'main' });
    expect((winner === a ? b : a).body).toMatchObject({ error: 'already_resolved' });
    expect(await api('POST', path, olga, found)).toMatchObject({ status: 409, body: { error: 'already_resolved' } });

    const journal = await journalEntriesOf(h, d.decisionId);
    expect(journal.map((e) => [e.kind, e.effectBoundary])).toEqual([
      ['tool_result', 'effect_state_unknown'],
      ['operator_action', boundary],
    ]);
    expect(journal[1]).toMatchObject({
      runId: 'resolve-run',
      principal: 'alice',
      capabilityId: journal[0].capabilityId,
      success: boundary === 'effect_completed',
      operator: { issuer: stack.env.issuer.issuer, subject: 'olga' },
      action: { name: 'resolve_unknown_effect', target: d.decisionId },
    });
    expect((await h.finalRows([d.decisionId])).length).toBe(1);
    const [effect] = await h.query<{ state: string; resolved_by: string; resolved_at: Date | null }>('SELECT state, resolved_by, resolved_at FROM effects WHERE decision_id = $1', [
      d.decisionId,
    ]);
    expect(effect).toMatchObject({ state: boundary, resolved_by: 'olga', resolved_at: expect.any(Date) });

    const replay = await cli(stack.env, ['replay', 'resolve-run']);
    expect([replay.code, replay.out.matches]).toEqual([0, true]);
    const verify = await cli(stack.env, ['verify']);
    expect([verify.code, verify.out.intact]).toEqual([0, true]);
  });
});
