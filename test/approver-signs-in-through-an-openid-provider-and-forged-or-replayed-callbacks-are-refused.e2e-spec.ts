import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { chromium, type Browser, type Cookie, type Page } from 'playwright-core';
import { OidcProvider } from './support/oidc-provider';
import { DATA, type RunningApp } from './support/services';
import { nextApiPort, Stack } from './support/stack';

const OUT = join(DATA, 'test-output', 'approver-console-oidc');
const CHROMIUM = '/usr/bin/chromium';
const CLIENT_ID = 'arvis-console';
const isCallback = (url: URL) => url.pathname === '/console/oidc/callback';

// An approver signs in to the console through a real OpenID provider (oidc-provider, its own
// process, on another site: localhost against the console's 127.0.0.1), by the authorization
// code flow with PKCE, in Chromium. The ID token is mapped through the issuer's claim mapping
// into a console session; no token is kept. A callback with a tampered state, a replayed one, an
// ID token with another sign-in's nonce or for another client is refused with its own code, and
// so is a pasted token where CONSOLE_TOKEN_SIGN_IN is off (ADR 0071).
describe('console sign-in through an OpenID provider', () => {
  let stack: Stack;
  let provider: OidcProvider;
  let authorizer: RunningApp;
  let db: Pool;
  let browser: Browser | undefined;

  beforeAll(async () => {
    stack = await Stack.create('console_oidc');
    const secretFile = join(mkdtempSync(join(tmpdir(), 'arvis-oidc-')), 'console-client-secret');
    const clientSecret = 'console-client-secret-of-the-test-provider';
    writeFileSync(secretFile, `${clientSecret}\n`, { mode: 0o600 });
    const redirectUri = `http://127.0.0.1:${nextApiPort()}/console/oidc/callback`;
    provider = await OidcProvider.start(
      {
        clients: [{ clientId: CLIENT_ID, clientSecret, redirectUri }],
        accounts: {
          carol: { tenant: 'acme', roles: ['approver'], email: 'carol@acme.example' },
          dave: { tenant: 'acme', roles: ['viewer'], email: 'dave@acme.example' },
        },
      },
      'console_oidc-provider',
    );
    const issuers = [
      ...(JSON.parse(stack.env.appEnv.TRUSTED_ISSUERS) as unknown[]),
      {
        issuer: provider.issuer,
        alg: 'RS256',
        jwksUri: `${provider.issuer}/jwks`,
        tenants: ['acme'],
        claims: { person: 'email' },
        oidc: { clientId: CLIENT_ID, clientSecretFile: secretFile, redirectUri, scope: 'openid arvis email' },
      },
    ];
    authorizer = await stack.start('authorizer', 'authorizer', { env: { TRUSTED_ISSUERS: JSON.stringify(issuers), CONSOLE_TOKEN_SIGN_IN: 'false', SIGN_IN_RATE_LIMIT: '100' } });
    expect(authorizer.apiPort).toBe(nextApiPort() - 1);
    db = new Pool({ connectionString: stack.env.databaseUrl, max: 1 });
    mkdirSync(OUT, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await provider?.stop();
    await stack?.stop();
  });

  const base = () => `http://127.0.0.1:${authorizer.apiPort}`;
  const freshPage = async (): Promise<Page> => {
    const context = await browser!.newContext({ viewport: { width: 1024, height: 700 } });
    return context.newPage();
  };

  /**
   * From the console's page through the provider's login, to the provider's redirect back to the
   * console's callback, whose URL is returned with the pre-login cookie as it was at the provider.
   * `hold`: the redirect is not followed (a spec then follows it as it is or tampered with);
   * Playwright cannot intercept a redirect's target, so the login's answer is taken instead.
   */
  async function signInAtProvider(page: Page, login: string, hold = true): Promise<{ callbackUrl: string; preLogin: Cookie[] }> {
    await page.goto(`${base()}/console`);
    await page.click('a.oidc-sign-in');
    await page.waitForURL(`${provider.issuer}/**`);
    const preLogin = await page.context().cookies(base());
    let held: (url: string) => void = () => undefined;
    const heldUrl = new Promise<string>((r) => (held = r));
    if (hold) {
      // The login form's POST is answered for the browser: its redirect to the provider's resume
      // URL is followed with the browser's cookies, and that one's redirect back is kept.
      await page.route(
        (u) => u.href.startsWith(`${provider.issuer}/interaction/`),
        async (route) => {
          if (route.request().method() !== 'POST') return route.fallback();
          const res = await route.fetch({ maxRedirects: 0 });
          const back = await page.context().request.get(new URL(res.headers()['location'], provider.issuer).href, { maxRedirects: 0 });
          held(back.headers()['location']);
          return route.fulfill({ status: 200, contentType: 'text/html', body: '<p>held</p>' });
        },
      );
    }
    const followed = hold ? Promise.race([heldUrl, page.waitForTimeout(30_000).then(() => Promise.reject(new Error('the provider did not answer the login')))]) : page.waitForRequest((r) => isCallback(new URL(r.url())), { timeout: 30_000 }).then((r) => r.url());
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any');
    await page.click('button[type=submit]');
    const callbackUrl = await followed;
    if (hold) await page.unrouteAll({ behavior: 'ignoreErrors' });
    return { callbackUrl, preLogin };
  }

  /** The refusal page a callback answered with: its status and typed code. */
  async function refused(page: Page, url: string): Promise<[number | undefined, string | null]> {
    const res = await page.goto(url);
    return [res?.status(), await page.textContent('#error')];
  }

  it("signs in through the provider into a session mapped by the issuer's claims, keeping no token; the callback cannot be replayed", async () => {
    const page = await freshPage();
    // Followed as a browser follows it: the provider's site sends it back, cross-site.
    const { callbackUrl, preLogin } = await signInAtProvider(page, 'carol', false);
    // While at the provider: state, nonce and verifier wait in a short Lax cookie, nothing else.
    expect(preLogin.map((c) => ({ name: c.name, sameSite: c.sameSite, httpOnly: c.httpOnly, secure: c.secure, path: c.path }))).toEqual([
      { name: '__Host-arvis_console_login', sameSite: 'Lax', httpOnly: true, secure: true, path: '/' },
    ]);
    expect(preLogin[0].expires - Date.now() / 1000).toBeLessThanOrEqual(600);
    expect(new URL(callbackUrl).searchParams.get('state')).toBe(preLogin[0].value.split('.')[1]);

    await page.waitForSelector('#pending:not([hidden])');
    expect(page.url()).toBe(`${base()}/console`);
    expect(await page.textContent('#who')).toContain('carol (acme)');
    await page.screenshot({ path: join(OUT, '1-signed-in-through-the-provider.png'), fullPage: true });
    // The pre-login is spent; the session cookie is today's (Strict, __Host-).
    const cookies = await page.context().cookies(base());
    expect(cookies.map((c) => [c.name, c.sameSite])).toEqual([['__Host-arvis_console', 'Strict']]);

    const { rows } = await db.query<{ tenant: string; principal: string; issuer: string; identity: Record<string, unknown> }>('SELECT tenant, principal, issuer, identity FROM console_sessions');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tenant: 'acme', principal: 'carol', issuer: provider.issuer });
    expect(rows[0].identity).toMatchObject({ roles: ['approver'], person: 'carol@acme.example', serviceId: CLIENT_ID, tenant: 'acme' });
    // No ID, access or refresh token anywhere: not in the session, not in the log.
    expect(JSON.stringify(rows)).not.toMatch(/eyJ/);
    expect(readFileSync(authorizer.logFile, 'utf8')).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
    const cookie = `${cookies[0].name}=${cookies[0].value}`;
    expect((await fetch(`${base()}/console/history`, { headers: { cookie } })).status).toBe(200);

    // The same callback again: no pre-login in this browser any more.
    expect(await refused(page, callbackUrl)).toEqual([400, 'oidc_login_not_started']);
    await page.screenshot({ path: join(OUT, '2-replayed-callback-refused.png'), fullPage: true });
    // Replayed with the spent pre-login cookie too: the provider refuses the code it already redeemed.
    const again = await fetch(callbackUrl, { headers: { cookie: `${preLogin[0].name}=${preLogin[0].value}` } });
    expect([again.status, await again.text()]).toEqual([401, expect.stringContaining('<p id="error">oidc_code_refused</p>')]);
    expect((await db.query('SELECT 1 FROM console_sessions')).rowCount).toBe(1);
  });

  it('refuses a callback whose state was tampered with, before the code is spent', async () => {
    const page = await freshPage();
    const url = new URL((await signInAtProvider(page, 'carol')).callbackUrl);
    url.searchParams.set('state', `${url.searchParams.get('state')}x`);
    expect(await refused(page, url.href)).toEqual([400, 'oidc_state_mismatch']);
    expect(await page.textContent('#message')).toContain('not for the sign-in this browser started');
  });

  it("refuses an ID token carrying another sign-in's nonce, and one issued to another client", async () => {
    await provider.tamperNextIdToken({ nonce: 'a-nonce-of-another-sign-in' });
    const page = await freshPage();
    expect(await refused(page, (await signInAtProvider(page, 'carol')).callbackUrl)).toEqual([401, 'oidc_nonce_mismatch']);
    await provider.tamperNextIdToken({ aud: 'another-client' });
    const other = await freshPage();
    expect(await refused(other, (await signInAtProvider(other, 'carol')).callbackUrl)).toEqual([401, 'oidc_audience_mismatch']);
    expect(await other.textContent('#message')).toContain('issued to another client');
    await other.screenshot({ path: join(OUT, '3-id-token-for-another-client-refused.png'), fullPage: true });
  });

  it('refuses an account without the approver role, and a pasted token where the token sign-in is off', async () => {
    const page = await freshPage();
    expect(await refused(page, (await signInAtProvider(page, 'dave')).callbackUrl)).toEqual([403, 'forbidden']);
    await page.goto(`${base()}/console`);
    expect([await page.locator('#token').count(), await page.locator('a.oidc-sign-in').count()]).toEqual([0, 1]);
    const pasted = await fetch(`${base()}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: 'a.b.c' }) });
    expect([pasted.status, await pasted.json(), pasted.headers.get('set-cookie')]).toEqual([403, expect.objectContaining({ error: 'token_sign_in_disabled' }), null]);
    expect((await db.query('SELECT 1 FROM console_sessions')).rowCount).toBe(1);
  });
});
