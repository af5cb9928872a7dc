import { adminApi, cli, OPERATOR_ENTRIES_SQL } from './support/admin-api';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// Consents and egress policies, the gate data policy reads (ADR 0014), changed by an operator
// through the admin API instead of by SQL (ADR 0036): each change takes effect for the next
// decision, happens once, stays within the operator's tenant and is journaled naming them.
describe('consent and egress set by an operator', () => {
  let stack: Stack;
  let h: Harness;
  let api: ReturnType<typeof adminApi>;
  beforeAll(async () => {
    stack = await Stack.create('access');
    api = adminApi(await stack.start('authorizer', 'authorizer'));
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const mail = (id: string) => h.mailDecision(id, 'access-run');
  const outcome = (id: string) => h.outcomeOf(id);

  it('lets mail go out only while the consent and the egress policy set through the API stand', async () => {
    // Gate data for acme exists (another principal's consent), so its absence for bob is a refusal.
    await h.query("INSERT INTO consent_grants (tenant, principal, consent_key) VALUES ('acme', 'alice', 'email')");
    const olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const consent = { tenant: 'acme', principal: 'bob', consentKey: 'email' };
    const egress = { tenant: 'acme', provider: 'smtp-relay', allowed: true };

    expect(await api('POST', '/admin/consents/grant', await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] }), consent)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(await api('POST', '/admin/consents/grant', await h.token({ principal: 'erin', tenant: 'globex', roles: ['admin'] }), consent)).toMatchObject({ status: 403, body: { error: 'other_tenant' } });
    expect(await api('POST', '/admin/consents/grant', olga, { ...consent, extra: 1 })).toMatchObject({ status: 400, body: { error: 'bad_request' } });

    expect(await api('POST', '/admin/consents/grant', olga, { ...consent, note: 'signed form 12' })).toMatchObject({ status: 200, body: { journalSeq: expect.any(String), journalChain: 'main' } });
    expect(await api('POST', '/admin/consents/grant', olga, consent)).toMatchObject({ status: 409, body: { error: 'already_granted' } });
    expect(await api('POST', '/admin/egress-policies', olga, egress)).toMatchObject({ status: 200 });
    expect(await api('POST', '/admin/egress-policies', olga, egress)).toMatchObject({ status: 409, body: { error: 'unchanged' } });
    const sent = await mail('access:granted');
    await h.client.send([sent]);
    expect(await outcome(sent.decisionId)).toEqual(['tool_result', 'effect_completed']);

    expect(await api('POST', '/admin/consents/withdraw', olga, { ...consent, note: 'withdrawn by phone' })).toMatchObject({ status: 200 });
    expect(await api('POST', '/admin/consents/withdraw', olga, consent)).toMatchObject({ status: 404, body: { error: 'not_granted' } });
    const refused = await mail('access:withdrawn');
    await h.client.send([refused]);
    expect(await outcome(refused.decisionId)).toEqual(['authorization_refusal', 'consent_required']);

    expect(await api('POST', '/admin/consents/grant', olga, consent)).toMatchObject({ status: 200 });
    expect(await api('POST', '/admin/egress-policies', olga, { ...egress, allowed: false })).toMatchObject({ status: 200 });
    const walled = await mail('access:no-egress');
    await h.client.send([walled]);
    expect(await outcome(walled.decisionId)).toEqual(['authorization_refusal', 'egress_gate_missing']);
    const [sink] = await h.query<{ n: string }>("SELECT count(*)::text AS n FROM mail_sink WHERE tenant = 'acme'");
    expect(sink.n).toBe('1');

    const acts = (await h.query<{ entry: string }>(OPERATOR_ENTRIES_SQL)).map((r) => JSON.parse(r.entry) as { operator: unknown; action: Record<string, string> });
    expect(acts.map((a) => a.action)).toEqual([
      { name: 'grant_consent', target: 'acme/bob/email', note: 'signed form 12' },
      { name: 'allow_egress', target: 'acme/smtp-relay' },
      { name: 'withdraw_consent', target: 'acme/bob/email', note: 'withdrawn by phone' },
      { name: 'grant_consent', target: 'acme/bob/email' },
      { name: 'deny_egress', target: 'acme/smtp-relay' },
    ]);
    expect(new Set(acts.map((a) => JSON.stringify(a.operator)))).toEqual(new Set([JSON.stringify({ issuer: stack.env.issuer.issuer, subject: 'olga' })]));

    // The same through the CLI, with the operator's token.
    const viaCli = await cli(stack.env, ['admin', 'withdraw-consent', 'acme', 'bob', 'email', '--note', 'from the CLI'], {
      ADMIN_URL: `http://127.0.0.1:${stack.apps[0].apiPort}`,
      ADMIN_TOKEN: olga,
    });
    expect([viaCli.code, viaCli.out.status]).toEqual([0, 200]);
    const again = await cli(stack.env, ['admin', 'withdraw-consent', 'acme', 'bob', 'email'], { ADMIN_URL: `http://127.0.0.1:${stack.apps[0].apiPort}`, ADMIN_TOKEN: olga });
    expect([again.code, again.out.status, (again.out.body as { error: string }).error]).toEqual([4, 404, 'not_granted']);
    const verify = await cli(stack.env, ['verify']);
    expect([verify.code, verify.out.intact]).toEqual([0, true]);
  });
});
