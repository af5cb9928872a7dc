import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mintIdentityToken } from '@arvis/decision-client';
import type { RunningApp } from './support/services';
import { Stack } from './support/stack';

// The authorizer's approver API faces people and browsers; its management surface faces probes
// and scrapers (ADR 0038). Every answer carries security headers, clients are rate-limited (sign-
// ins more tightly), an error says its status and our own words only, and health and metrics are
// served on the management port alone, as they are by the dispatcher, which has no API at all.
describe('the HTTP surface', () => {
  let stack: Stack;
  let authorizer: RunningApp;
  let dispatcher: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('surface');
    // As behind a TLS proxy on this host: it may name the client in X-Forwarded-For.
    authorizer = await stack.start('authorizer', 'authorizer', { env: { API_RATE_LIMIT: '40', SIGN_IN_RATE_LIMIT: '3', API_ADDRESS_RATE_LIMIT: '100', TRUST_PROXY: 'loopback' } });
    dispatcher = await stack.start('dispatcher', 'dispatcher');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const api = (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${authorizer.apiPort}${path}`, init);
  const management = (app: RunningApp, path: string) => fetch(`http://127.0.0.1:${app.port}${path}`);
  const answer = async (res: Response) => ({ status: res.status, body: (await res.json()) as unknown });
  const signIn = (body: string) => api('/console/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('sends security headers, with a CSP that allows only its own origin', async () => {
    for (const res of [await api('/console'), await api('/confirmations')]) {
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp.split(';')).toEqual(expect.arrayContaining(["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"]));
      expect(csp).not.toContain('unsafe-inline');
      expect({
        nosniff: res.headers.get('x-content-type-options'),
        frames: res.headers.get('x-frame-options'),
        referrer: res.headers.get('referrer-policy'),
        hsts: res.headers.get('strict-transport-security') !== null,
        poweredBy: res.headers.get('x-powered-by'),
      }).toEqual({ nosniff: 'nosniff', frames: 'DENY', referrer: 'no-referrer', hsts: true, poweredBy: null });
    }
  });

  it('serves health and metrics on the management port only, and the API on the API port only', async () => {
    const notFound = { status: 404, body: { statusCode: 404, error: 'not_found' } };
    expect(await answer(await api('/metrics'))).toEqual(notFound);
    expect(await answer(await api('/health/ready'))).toEqual(notFound);
    expect(await answer(await management(authorizer, '/confirmations'))).toEqual(notFound);
    expect((await management(authorizer, '/console')).status).toBe(404);
    expect((await management(authorizer, '/health/ready')).status).toBe(200);
    expect(await (await management(authorizer, '/metrics')).text()).toContain('arvis_outbox_depth');
    // The dispatcher has one port, the management one.
    expect((await management(dispatcher, '/health/ready')).status).toBe(200);
    expect((await management(dispatcher, '/metrics')).status).toBe(200);
    expect((await management(dispatcher, '/confirmations')).status).toBe(404);
  });

  it('says which release answers: the version of package.json in health, ready and arvis_build_info (ADR 0065)', async () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    for (const [app, service] of [[authorizer, 'authorizer'], [dispatcher, 'dispatcher']] as const) {
      expect(await (await management(app, '/health/live')).json()).toEqual({ status: 'ok', version });
      expect(await (await management(app, '/health/ready')).json()).toMatchObject({ status: 'ok', service, version });
      expect((await (await management(app, '/metrics')).text()).split('\n')).toContain(`arvis_build_info{version="${version}",service="${service}"} 1`);
    }
  });

  it('serves only its own routes on the API port, whatever the letter case of a management path', async () => {
    // Express routes case-insensitively: before the allow-list these reached the metrics and
    // health handlers through the API port.
    for (const path of ['/METRICS', '/Metrics', '/Health/ready', '/HEALTH/LIVE', '/health/Live', '/metrics/']) {
      expect([path, (await api(path)).status]).toEqual([path, 404]);
    }
    for (const path of ['/CONFIRMATIONS', '/Console', '/Admin/store']) {
      expect([path, (await management(authorizer, path)).status]).toEqual([path, 404]);
      expect([path, (await api(path)).status]).toEqual([path, 404]);
    }
    for (const path of ['/METRICS', '/Health/ready']) expect([path, (await management(authorizer, path)).status]).toEqual([path, 404]);
    expect((await api('/console')).status).toBe(200);
  });

  it('answers errors with a status and our own words: no stack, no parser or JWT library message', async () => {
    expect(await answer(await signIn('{"token": '))).toEqual({ status: 400, body: { statusCode: 400, error: 'bad_request' } });
    expect(await answer(await api('/no/such/route'))).toEqual({ status: 404, body: { statusCode: 404, error: 'not_found' } });
    const token = await mintIdentityToken(stack.env.issuer, { principal: 'carol', tenant: 'acme', serviceId: 'console', roles: ['approver'] });
    const forged = `${token.slice(0, -6)}${token.slice(-6) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`;
    const refused = await api('/confirmations', { headers: { authorization: `Bearer ${forged}` } });
    const text = await refused.text();
    expect([refused.status, JSON.parse(text)]).toEqual([
      401,
      { statusCode: 401, error: 'unauthenticated', reasonCode: 'identity_invalid', message: 'the token was not accepted (expired, not signed by a trusted issuer, or unreadable)' },
    ]);
    expect(text).not.toMatch(/ERR_JWS|signature verification failed|at .*\.js/);
  });

  it('limits sign-ins and API calls per client, answering 429; the management port is not limited', async () => {
    const signIns = [];
    for (let i = 0; i < 4; i++) signIns.push(await signIn(JSON.stringify({ token: 'not-a-token' })));
    expect(signIns.map((r) => r.status)).toEqual([401, 401, 401, 429]);
    expect([await signIns[3].json(), Number(signIns[3].headers.get('retry-after')) > 0]).toEqual([{ statusCode: 429, error: 'too_many_requests' }, true]);

    const statuses: number[] = [];
    for (let i = 0; i < 45 && !statuses.includes(429); i++) statuses.push((await api('/confirmations')).status);
    expect(statuses.at(-1)).toBe(429);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([401]));

    const probes = await Promise.all(Array.from({ length: 50 }, () => management(authorizer, '/health/live')));
    expect(new Set(probes.map((r) => r.status))).toEqual(new Set([200]));
  });

  it('behind the proxy, keys limits on the client it names and on each credential, so one client cannot lock out the others', async () => {
    // Every request here comes from the proxy's address (127.0.0.1); the earlier test spent the
    // budget of requests that name no client and carry no credential.
    expect((await api('/confirmations')).status).toBe(429);
    // Another client, as the proxy names it, is not held to that budget...
    expect((await api('/confirmations', { headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(401);
    // ...nor is an approver with a credential of their own, behind the same address.
    const carol = await mintIdentityToken(stack.env.issuer, { principal: 'carol', tenant: 'acme', serviceId: 'console', roles: ['approver'] });
    expect((await api('/confirmations', { headers: { authorization: `Bearer ${carol}` } })).status).toBe(200);
    // One credential's own budget is its own: spending it refuses only that credential.
    const mallory = { authorization: 'Bearer not-a-token' };
    const statuses: number[] = [];
    for (let i = 0; i < 45 && !statuses.includes(429); i++) statuses.push((await api('/confirmations', { headers: mallory })).status);
    expect(statuses.at(-1)).toBe(429);
    expect((await api('/confirmations', { headers: { authorization: `Bearer ${carol}` } })).status).toBe(200);
  });
});
