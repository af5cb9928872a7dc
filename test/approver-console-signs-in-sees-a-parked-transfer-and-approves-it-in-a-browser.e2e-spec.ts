import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { DecisionInput } from '@arvis/decision-client';
import { Harness } from './support/harness';
import { DATA, type RunningApp } from './support/services';
import { Stack } from './support/stack';

const OUT = join(DATA, 'test-output', 'approver-console');
const CHROMIUM = '/usr/bin/chromium';

// An approver opens the authorizer's console in a real browser, signs in by pasting a token,
// sees a transfer that was parked while the page was open (no reload: server-sent events), with
// its amount, approves it in the page, and the transfer runs: its journal result arrives. The
// token goes in a request body once and is never seen again: not in any URL the browser asked
// for, not in its history, not in the authorizer's log (ADR 0037).
describe('the approver console in a browser', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  const urls: string[] = [];
  const navigations: string[] = [];

  beforeAll(async () => {
    stack = await Stack.create('console');
    authorizer = await stack.start('authorizer', 'authorizer', { env: { CONFIRMATION_POLL_MS: '200', CONSOLE_EVENTS_POLL_MS: '250' } });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
    mkdirSync(OUT, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
    context.on('request', (r) => urls.push(r.url()));
    page = await context.newPage();
    page.on('framenavigated', (f) => navigations.push(f.url()));
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await stack?.stop();
  });

  const base = () => `http://127.0.0.1:${authorizer.apiPort}`;
  const transfer = async (id: string): Promise<DecisionInput> => ({
    decisionId: id,
    runId: 'console-run',
    causalId: id,
    tool: 'ledger.transfer',
    payload: { from: 'acc-1', to: 'acc-2', amountMinor: 48_213, currency: 'EUR', reference: 'invoice-77' },
    riskScore: 0.2,
    identity: await h.token({ principal: 'alice', tenant: 'acme' }),
  });

  it('signs in with a pasted token, sees the parked transfer appear with its amount, approves it, and the transfer completes', async () => {
    const token = await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] });
    await page.goto(`${base()}/console`);
    await page.fill('#token', token);
    await page.click('#sign-in-button');
    await page.waitForSelector('#pending:not([hidden])');
    expect(await page.textContent('#who')).toContain('carol (acme)');
    expect(await page.inputValue('#token')).toBe('');

    // The session is a cookie the page's script cannot read, never sent cross-site, and __Host-
    // prefixed (Path=/, no Domain): no sibling subdomain can plant or shadow it.
    const cookies = await context.cookies(`${base()}/console`);
    expect(cookies.map((c) => ({ name: c.name, path: c.path, httpOnly: c.httpOnly, sameSite: c.sameSite, secure: c.secure, domain: c.domain }))).toEqual([
      { name: '__Host-arvis_console', path: '/', httpOnly: true, sameSite: 'Strict', secure: true, domain: '127.0.0.1' },
    ]);
    expect(await page.evaluate('document.cookie')).toBe('');

    // Parked after the page opened: it arrives over the event stream.
    const d = await transfer('console:transfer');
    await h.client.send([d]);
    const shown = page.locator('.confirmation', { hasText: 'ledger.transfer' });
    await shown.waitFor({ timeout: 60_000 });
    expect(await shown.locator('.payload').textContent()).toContain('"amountMinor": 48213');
    expect(await shown.textContent()).toContain('Requested by alice');
    expect(await shown.textContent()).toContain('reversible false');
    await page.screenshot({ path: join(OUT, '1-parked-transfer.png'), fullPage: true });

    // ledger.transfer is declared irreversible: it is approved only with its name typed (ADR 0069).
    await shown.locator('input.typed-confirmation').fill('ledger.transfer');
    await shown.locator('button.approve').click();
    await page.locator('#verdicts li', { hasText: 'approved' }).waitFor();
    // The transfer runs (the resume worker, then the dispatcher); its final entry reaches the page.
    const outcome = page.locator(`#outcomes li[data-decision-id="${d.decisionId}"]`);
    await outcome.waitFor({ timeout: 60_000 });
    expect(await outcome.textContent()).toMatch(/^ledger\.transfer \S+ \(approved\): tool_result, effect_completed$/);
    expect((await h.finalRows([d.decisionId]))[0]).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    // The stream takes the decided confirmation off the page.
    await page.locator('#empty:not([hidden])').waitFor();
    await page.screenshot({ path: join(OUT, '2-approved-and-completed.png'), fullPage: true });

    // Same service as the API: the verdict is journaled naming the approver's issuer and subject.
    const [verdict] = await h.query<{ entry: string }>(`SELECT entry FROM journal WHERE decision_id = $1 AND kind = 'confirmation_approved'`, [d.decisionId]);
    expect((JSON.parse(verdict.entry) as { approver: unknown }).approver).toEqual({ issuer: stack.env.issuer.issuer, subject: 'carol' });

    // The token went once, in a POST body: no URL, no history entry, no log line carries it.
    expect(urls.length).toBeGreaterThan(3);
    expect(urls.filter((u) => u.includes(token) || u.includes(token.split('.')[1]))).toEqual([]);
    // One navigation, to the console: signing in did not submit a form to a URL.
    expect([navigations, page.url()]).toEqual([[`${base()}/console`], `${base()}/console`]);
    const log = readFileSync(authorizer.logFile, 'utf8');
    expect(log.length).toBeGreaterThan(0);
    expect([log.includes(token), log.includes(token.split('.')[2])]).toEqual([false, false]);
  });

  it('shows hidden and direction-changing characters escaped and flagged, wraps long values, and names who asked through which service', async () => {
    // U+202E renders "2-cca" as "acc-2": the approver must see the text that will run.
    const d = { ...(await transfer('console:tricked')), runId: 'console-tricked-run' };
    d.payload = { ...d.payload, to: '\u202e2-cca\u202c', reference: `ref-${'x'.repeat(146)}` };
    await h.client.send([d]);
    const card = page.locator('.confirmation', { hasText: 'ref-xxxx' });
    await card.waitFor({ timeout: 60_000 });
    const shown = (await card.locator('.payload').textContent())!;
    expect(shown).toContain('"to": "\\u202e2-cca\\u202c"');
    expect([shown.includes('\u202e'), shown.includes('\u202c')]).toEqual([false, false]);
    // What is shown is still the JSON of the input that will run.
    expect((JSON.parse(shown) as { to: string }).to).toBe(d.payload.to);
    expect(await card.locator('.hidden-characters').textContent()).toContain('$.payload.to (U+202E U+202C)');
    const text = (await card.textContent())!;
    for (const part of [`alice of ${stack.env.issuer.issuer}`, 'through service agent-1', 'decision console:tricked', 'run console-tricked-run']) expect(text).toContain(part);
    // The 150-character reference wraps inside the card instead of running off it.
    const overflow = await card.evaluate((e) => [e.scrollWidth - e.clientWidth, e.querySelector('pre')!.scrollWidth - e.querySelector('pre')!.clientWidth]);
    expect(overflow).toEqual([0, 0]);
    await page.screenshot({ path: join(OUT, '3-hidden-characters-flagged.png'), fullPage: true });
    await card.locator('button.deny').click();
    await page.locator('#verdicts li', { hasText: 'denied' }).waitFor();
  });

  it('refuses a verdict without the CSRF header, and a signed-out session', async () => {
    const d = await transfer('console:csrf');
    await h.client.send([d]);
    await h.waitUntil('the second transfer to be parked', async () => (await h.query('SELECT 1 FROM confirmations WHERE decision_id = $1', [d.decisionId])).length === 1);
    const [{ confirmation_id: id }] = await h.query<{ confirmation_id: string }>('SELECT confirmation_id FROM confirmations WHERE decision_id = $1', [d.decisionId]);
    const cookie = (await context.cookies(`${base()}/console`)).map((c) => `${c.name}=${c.value}`).join('; ');
    const approve = (headers: Record<string, string>) => fetch(`${base()}/console/confirmations/${id}/approve`, { method: 'POST', headers: { cookie, ...headers } });

    const noCsrf = await approve({});
    expect([noCsrf.status, await noCsrf.json()]).toEqual([403, expect.objectContaining({ statusCode: 403, error: 'csrf_token_invalid' })]);
    const { csrfToken } = (await (await fetch(`${base()}/console/session`, { headers: { cookie } })).json()) as { csrfToken: string };
    expect((await approve({ 'x-csrf-token': `${csrfToken}x` })).status).toBe(403);

    // Signing out in the page ends the session on the server: the same cookie, even with its CSRF token, is refused.
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in:not([hidden])');
    expect((await approve({ 'x-csrf-token': csrfToken })).status).toBe(401);
    expect((await h.query<{ status: string }>('SELECT status FROM confirmations WHERE confirmation_id = $1', [id]))[0].status).toBe('pending');
  });

  it('refuses a sign-in that a cross-site form could send, and sets no cookie for it (login CSRF)', async () => {
    const token = await h.token({ principal: 'mallory', tenant: 'acme', roles: ['approver'] });
    const signIn = (headers: Record<string, string>, body: string) => fetch(`${base()}/console/session`, { method: 'POST', headers, body });
    // What an attacker's page submits: a form-encoded body, from its own origin.
    const form = await signIn(
      { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' },
      new URLSearchParams({ token }).toString(),
    );
    expect([form.status, await form.json(), form.headers.get('set-cookie')]).toEqual([415, expect.objectContaining({ error: 'unsupported_media_type' }), null]);
    for (const type of ['text/plain', 'multipart/form-data; boundary=x']) expect((await signIn({ 'content-type': type }, `token=${token}`)).status).toBe(415);
    // JSON is refused too when a browser says it came from elsewhere.
    const foreign: Record<string, string>[] = [{ origin: 'https://attacker.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }];
    for (const headers of foreign) {
      const res = await signIn({ 'content-type': 'application/json', ...headers }, JSON.stringify({ token }));
      expect([res.status, res.headers.get('set-cookie')]).toEqual([403, null]);
    }
    // And from the console's own origin it signs in.
    const own = await signIn({ 'content-type': 'application/json', origin: base(), 'sec-fetch-site': 'same-origin' }, JSON.stringify({ token }));
    expect([own.status, own.headers.get('set-cookie')?.split('=')[0]]).toEqual([200, '__Host-arvis_console']);
  });

  it("ends a console session as soon as its token's IdP session is revoked", async () => {
    const token = await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'], sessionId: 'console-revoked' });
    const signedIn = await fetch(`${base()}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
    const whoAmI = async () => (await fetch(`${base()}/console/session`, { headers: { cookie } })).status;
    expect([signedIn.status, await whoAmI()]).toEqual([200, 200]);
    await h.query('INSERT INTO revoked_sessions (session_id_hash) VALUES ($1)', [createHash('sha256').update('console-revoked').digest('hex')]);
    expect(await whoAmI()).toBe(401);
  });
});
