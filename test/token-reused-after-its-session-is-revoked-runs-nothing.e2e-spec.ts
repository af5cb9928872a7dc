import { sha256Hex } from '@arvis/crypto';
import { adminApi, cli, OPERATOR_ENTRIES_SQL } from './support/admin-api';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// A session revoked through the admin API (ADR 0036): the token of that session, reused for a
// new decision, is refused at admission (identity_invalid) and nothing runs; the revocation is an
// operator_action entry naming the operator. Before the admin API this was an INSERT by hand.
describe('a token reused after its session is revoked', () => {
  let stack: Stack;
  let h: Harness;
  let api: ReturnType<typeof adminApi>;
  beforeAll(async () => {
    stack = await Stack.create('revoke');
    api = adminApi(await stack.start('authorizer', 'authorizer'));
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const notesOf = async (decisionId: string) =>
    (await h.query<{ n: string }>('SELECT count(*)::text AS n FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1', [decisionId]))[0].n;

  it('ends in admission_refusal identity_invalid and runs nothing, after the operator revoked it through the admin API', async () => {
    const identity = await h.token({ principal: 'alice', tenant: 'acme', sessionId: 'session-reused' });
    const [before] = await h.decisions('revoke-run', 1, { identity, decisionId: 'revoke:before', causalId: 'before' });
    await h.client.send([before]);
    await h.waitUntil('the first decision to end', async () => (await h.finalRows([before.decisionId])).length === 1);
    expect((await h.finalRows([before.decisionId]))[0]).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });

    const olga = await h.token({ principal: 'olga', tenant: 'acme', sessionId: 'olga-session', roles: ['admin'] });
    // Refused, with typed bodies: no token, a bad token, a token without the admin role (an approver's too).
    expect(await api('POST', '/admin/sessions/revoke', undefined, { sessionId: 'session-reused' })).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
    expect(await api('POST', '/admin/sessions/revoke', 'not-a-token', { sessionId: 'session-reused' })).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
    for (const roles of [[], ['approver']]) {
      const notAdmin = await h.token({ principal: 'carol', tenant: 'acme', roles });
      expect(await api('POST', '/admin/sessions/revoke', notAdmin, { sessionId: 'session-reused' })).toEqual({
        status: 403,
        body: { error: 'forbidden', message: 'the admin role is required' },
      });
    }
    expect(await api('POST', '/admin/sessions/revoke', olga, {})).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    expect(await h.query('SELECT 1 FROM revoked_sessions')).toEqual([]);

    const revoked = await api('POST', '/admin/sessions/revoke', olga, { sessionId: 'session-reused', note: 'token leaked' });
    expect(revoked).toMatchObject({ status: 200, body: { sessionIdHash: sha256Hex('session-reused'), journalSeq: expect.any(String) } });
    expect(await api('POST', '/admin/sessions/revoke', olga, { sessionIdHash: sha256Hex('session-reused') })).toMatchObject({ status: 409, body: { error: 'already_revoked' } });

    const [reused] = await h.decisions('revoke-run', 1, { identity, decisionId: 'revoke:reused', causalId: 'reused', payload: { text: 'again', ref: 'revoke:reused' } });
    await h.client.send([reused]);
    await h.waitUntil('the reused token\'s decision to end', async () => (await h.finalRows([reused.decisionId])).length === 1);
    expect((await h.finalRows([reused.decisionId]))[0]).toMatchObject({ kind: 'admission_refusal', reason_code: 'identity_invalid' });
    expect(await h.query('SELECT state FROM capabilities WHERE decision_id = $1', [reused.decisionId])).toEqual([{ state: 'revoked' }]);
    expect(await notesOf(reused.decisionId)).toBe('0');
    expect(await notesOf(before.decisionId)).toBe('1');

    // The operator's own revoked session no longer opens the admin API.
    expect((await api('POST', '/admin/sessions/revoke', olga, { sessionId: 'olga-session' })).status).toBe(200);
    expect(await api('POST', '/admin/sessions/revoke', olga, { sessionId: 'anything' })).toMatchObject({ status: 401, body: { message: 'the session was revoked' } });

    const acts = (await h.query<{ entry: string }>(OPERATOR_ENTRIES_SQL)).map((r) => JSON.parse(r.entry) as Record<string, unknown>);
    expect(acts).toEqual([
      expect.objectContaining({
        kind: 'operator_action',
        runId: 'arvis.operator',
        tenant: 'acme',
        principal: 'olga',
        tool: 'arvis.admin',
        effectBoundary: 'effect_not_started',
        success: false,
        operator: { issuer: stack.env.issuer.issuer, subject: 'olga' },
        action: { name: 'revoke_session', target: sha256Hex('session-reused'), note: 'token leaked' },
      }),
      expect.objectContaining({ action: { name: 'revoke_session', target: sha256Hex('olga-session') } }),
    ]);
    const verify = await cli(stack.env, ['verify']);
    expect([verify.code, verify.out.intact]).toEqual([0, true]);
    const replay = await cli(stack.env, ['replay', 'arvis.operator']);
    expect([replay.code, replay.out.matches, replay.out.entriesReplayed]).toEqual([0, true, 2]);
  });
});
