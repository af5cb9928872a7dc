import { adminApi, OPERATOR_ENTRIES_SQL } from './support/admin-api';
import { Harness } from './support/harness';
import { stopApp, type RunningApp } from './support/services';
import { metric, Stack } from './support/stack';

// A console session keeps the identity verified at sign-in, so it must also be held to what its
// issuer's entry says now: before, a session opened through an issuer that was then removed or
// re-ruled went on approving until it expired. And an operator can end a tenant's console
// sessions at once, by issuer or by principal, journaled like every admin act (ADR 0037, 0036).
describe('a console session', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('consoleend');
    authorizer = await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const base = () => `http://127.0.0.1:${authorizer.apiPort}`;
  const signIn = async (principal: string): Promise<string> => {
    const token = await h.token({ principal, tenant: 'acme', roles: ['approver'] });
    const res = await fetch(`${base()}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(res.status).toBe(200);
    return res.headers.get('set-cookie')!.split(';')[0];
  };
  const whoAmI = async (cookie: string) => (await fetch(`${base()}/console/session`, { headers: { cookie } })).status;

  it('is ended by an operator, by principal or by issuer, only in the operator’s tenant, and the act is journaled', async () => {
    const [carol, dave] = [await signIn('carol'), await signIn('dave')];
    const api = adminApi(authorizer);
    const olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const issuer = stack.env.issuer.issuer;
    expect(await api('POST', '/admin/console-sessions/end', await h.token({ principal: 'erin', tenant: 'globex', roles: ['admin'] }), { issuer, principal: 'carol' })).toMatchObject({
      status: 404,
      body: { error: 'no_live_sessions' },
    });
    expect([await whoAmI(carol), await whoAmI(dave)]).toEqual([200, 200]);

    expect(await api('POST', '/admin/console-sessions/end', olga, { issuer, principal: 'carol', note: 'left the team' })).toMatchObject({ status: 200, body: { ended: 1 } });
    expect([await whoAmI(carol), await whoAmI(dave)]).toEqual([401, 200]);
    expect(await api('POST', '/admin/console-sessions/end', olga, { issuer })).toMatchObject({ status: 200, body: { ended: 1 } });
    expect(await whoAmI(dave)).toBe(401);
    expect(await api('POST', '/admin/console-sessions/end', olga, { issuer })).toMatchObject({ status: 404, body: { error: 'no_live_sessions' } });

    const acts = (await h.query<{ entry: string }>(OPERATOR_ENTRIES_SQL)).map((r) => (JSON.parse(r.entry) as { action: unknown }).action);
    expect(acts).toEqual([
      { name: 'end_console_sessions', target: `acme/${issuer}/carol`, note: 'left the team' },
      { name: 'end_console_sessions', target: `acme/${issuer}` },
    ]);
  });

  // Each open stream used to poll the database on its own, without bound per session. Now a
  // session holds at most CONSOLE_STREAMS_PER_SESSION (3) and one poller serves a tenant's streams.
  it('holds at most three event streams per session, and polls once per tenant for all of them', async () => {
    const [first, second] = [await signIn('carol'), await signIn('dave')];
    const aborts: AbortController[] = [];
    const open = async (cookie: string) => {
      const abort = new AbortController();
      aborts.push(abort);
      const res = await fetch(`${base()}/console/events`, { headers: { cookie, accept: 'text/event-stream' }, signal: abort.signal });
      return { status: res.status, body: res.status === 200 ? null : await res.json() };
    };
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await open(first)).status);
      expect(statuses).toEqual([200, 200, 200]);
      expect(await open(first)).toEqual({ status: 429, body: expect.objectContaining({ error: 'too_many_streams' }) });
      expect((await open(second)).status).toBe(200);
      expect([await metric(authorizer, 'arvis_console_streams'), await metric(authorizer, 'arvis_console_pollers')]).toEqual([4, 1]);
    } finally {
      for (const a of aborts) a.abort();
    }
    await h.waitUntil('the streams to close', async () => (await metric(authorizer, 'arvis_console_streams')) === 0);
    expect(await metric(authorizer, 'arvis_console_pollers')).toBe(0);
  });

  it("ends once its issuer's rules change, while a new sign-in under the new rules works", async () => {
    const before = await signIn('carol');
    expect(await whoAmI(before)).toBe(200);
    await stopApp(authorizer);
    const issuers = JSON.parse(stack.env.appEnv.TRUSTED_ISSUERS) as Record<string, unknown>[];
    authorizer = await stack.start('authorizer', 'authorizer-new-rules', { env: { TRUSTED_ISSUERS: JSON.stringify(issuers.map((i) => ({ ...i, maxTokenAgeS: 3600 }))) } });
    expect(await whoAmI(before)).toBe(401);
    expect(await whoAmI(await signIn('carol'))).toBe(200);
  });
});
