// Code passed to page.evaluate runs in the browser: its DOM types.
/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { DecisionInput } from '@arvis/decision-client';
import { Harness } from './support/harness';
import { DATA, ROOT, type RunningApp } from './support/services';
import { Stack } from './support/stack';

const OUT = join(DATA, 'test-output', 'approver-console-in-context');
const CHROMIUM = '/usr/bin/chromium';
const HINTS = join(ROOT, 'test', 'support', 'tool-packages', 'console-hints');
const PREFIX = '/approvals';

/** A reverse proxy that serves the authorizer's API under PREFIX, streaming (server-sent events pass through). */
function prefixProxy(target: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (!req.url!.startsWith(`${PREFIX}/`)) return void res.writeHead(404).end('not under the prefix');
    const upstream = request({ host: '127.0.0.1', port: target, method: req.method, path: req.url!.slice(PREFIX.length), headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// An approver judges a parked action in context, in Chromium, through a proxy that serves the
// console under a path prefix (ADR 0069): the card names the decision, the run, the requester's
// issuer and subject, the calling service, the risk and a countdown to expiry; the tool's display
// hints (money, timestamp, enumeration) stand beside the exact values that will run; the run's
// earlier decisions are listed with how they ended. An irreversible tool is approved only with its
// name typed; a verdict's comment is journaled with it; buttons wait while a verdict is in flight
// and every failed answer (HTML from a proxy, no answer at all, a JSON refusal) is shown; the
// history filters by tool, requester, outcome and time and pages on past 200.
describe('an approver judging in context under a path prefix', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  let proxy: Server;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    stack = await Stack.create('console_context', { toolPackages: [HINTS] });
    authorizer = await stack.start('authorizer', 'authorizer', { env: { CONFIRMATION_POLL_MS: '200', CONSOLE_EVENTS_POLL_MS: '250' } });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
    proxy = await prefixProxy(authorizer.apiPort!);
    mkdirSync(OUT, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    context = await browser.newContext({ viewport: { width: 1100, height: 1000 } });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
    await h?.close();
    await stack?.stop();
  });

  const consoleUrl = () => `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${PREFIX}/console`;
  const payment = async (id: string, runId: string, over: Record<string, unknown> = {}): Promise<DecisionInput> => ({
    decisionId: id,
    runId,
    causalId: id,
    tool: 'payment.schedule',
    payload: { to: 'acc-9', amountMinor: 1_250_000, currency: 'EUR', executeAtMs: Date.UTC(2026, 11, 24, 9, 30), priority: 'urgent', ...over },
    riskScore: 0.35,
    identity: await h.token({ principal: 'alice', tenant: 'acme', serviceId: 'payments-agent' }),
  });
  const cardOf = async (decisionId: string): Promise<Locator> => {
    const card = page.locator('.confirmation', { hasText: `decision ${decisionId},` });
    await card.waitFor({ timeout: 60_000 });
    return card;
  };

  it('signs in under the prefix and shows a card with its ids, requester, service, risk, countdown, hints beside the exact values and the run so far', async () => {
    // `/approvals/console/` is sent to the page itself, where its relative links resolve.
    const slash = await fetch(`${consoleUrl()}/`, { redirect: 'manual' });
    expect([slash.status, slash.headers.get('location')]).toEqual([308, '../console']);
    await page.goto(`${consoleUrl()}/`);
    expect(page.url()).toBe(consoleUrl());
    await page.fill('#token', await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] }));
    await page.click('#sign-in-button');
    await page.waitForSelector('#pending:not([hidden])');
    await page.locator('#live', { hasText: '(live)' }).waitFor();

    // Two earlier steps of the run end first; then the payment is parked.
    const [n1, n2] = await h.decisions('pay-run', 2);
    await h.client.send([n1, n2]);
    expect([await h.outcomeOf(n1.decisionId), await h.outcomeOf(n2.decisionId)]).toEqual([
      ['tool_result', 'effect_completed'],
      ['tool_result', 'effect_completed'],
    ]);
    const d = await payment('pay:1', 'pay-run');
    await h.client.send([d]);
    const card = await cardOf(d.decisionId);

    const text = (await card.textContent())!;
    for (const part of ['payment.schedule', 'decision pay:1, run pay-run', `Requested by alice of ${stack.env.issuer.issuer} through service payments-agent`, 'risk score 0.35', 'reversible false']) {
      expect(text).toContain(part);
    }
    // The countdown runs on the server's clock: 15 minutes from parking, going down.
    const clock = card.locator('.countdown');
    const first = (await clock.textContent())!;
    expect(first).toMatch(/^expires in 1[45]:\d\d$/);
    await page.waitForFunction((before) => document.querySelector('.confirmation .countdown')!.textContent !== before, first);

    // Each hint beside the exact value the tool will get.
    const row = async (field: string) => [await card.locator(`tr[data-field="${field}"] .exact`).textContent(), await card.locator(`tr[data-field="${field}"] .shown`).textContent()];
    expect(await row('amountMinor')).toEqual(['1250000', 'EUR 12,500.00 (2 minor units)']);
    expect(await row('executeAtMs')).toEqual([String(Date.UTC(2026, 11, 24, 9, 30)), '2026-12-24 09:30:00 UTC']);
    expect(await row('priority')).toEqual(['"urgent"', 'Urgent: instant payment, cannot be recalled']);
    expect(await card.locator('.payload').textContent()).toContain('"amountMinor": 1250000');

    // The run so far, with how each step ended.
    const earlier = card.locator('.earlier li');
    expect(await earlier.allTextContents()).toEqual([
      expect.stringMatching(/^notes\.append pay-run:d0 at \S+: tool_result, effect_completed$/),
      expect.stringMatching(/^notes\.append pay-run:d1 at \S+: tool_result, effect_completed$/),
    ]);
    await page.screenshot({ path: join(OUT, '1-card-in-context.png'), fullPage: true });
  });

  it('approves an irreversible tool only with its name typed, and journals the comment with the verdict', async () => {
    const d = await payment('pay:1', 'pay-run');
    const card = await cardOf(d.decisionId);
    const approve = card.locator('button.approve');
    expect(await approve.isDisabled()).toBe(true);
    await card.locator('input.typed-confirmation').fill('payment.schedul');
    expect(await approve.isDisabled()).toBe(true);

    // The server asks for it too: the page's check is not the only one.
    const [{ confirmation_id: id }] = await h.query<{ confirmation_id: string }>('SELECT confirmation_id FROM confirmations WHERE decision_id = $1', [d.decisionId]);
    const cookie = (await context.cookies(consoleUrl())).map((c) => `${c.name}=${c.value}`).join('; ');
    const { csrfToken } = (await (await fetch(`${consoleUrl()}/session`, { headers: { cookie } })).json()) as { csrfToken: string };
    const untyped = await fetch(`${consoleUrl()}/confirmations/${id}/approve`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify({ typedConfirmation: 'yes' }),
    });
    expect([untyped.status, ((await untyped.json()) as { error: string }).error]).toEqual([422, 'typed_confirmation_required']);

    await card.locator('input.typed-confirmation').fill('payment.schedule');
    await card.locator('input.comment').fill('checked with the supplier by phone · Rückruf 10:05');
    expect(await approve.isDisabled()).toBe(false);
    await page.screenshot({ path: join(OUT, '2-typed-confirmation.png'), fullPage: true });
    await approve.click();
    await page.locator('#verdicts li', { hasText: `${id}: approved` }).waitFor();
    expect(await h.outcomeOf(d.decisionId)).toEqual(['tool_result', 'effect_completed']);
    const [verdict] = await h.query<{ entry: string }>(`SELECT entry FROM journal WHERE decision_id = $1 AND kind = 'confirmation_approved'`, [d.decisionId]);
    expect((JSON.parse(verdict.entry) as { approver: unknown }).approver).toEqual({
      issuer: stack.env.issuer.issuer,
      subject: 'carol',
      comment: 'checked with the supplier by phone · Rückruf 10:05',
    });
  });

  it('keeps both buttons disabled while a verdict is in flight and shows every failed answer: HTML from a proxy, no answer, a JSON refusal', async () => {
    const d = await payment('pay:2', 'pay-run-2', { priority: 'normal', amountMinor: 990 });
    await h.client.send([d]);
    const card = await cardOf(d.decisionId);
    const [approve, deny, error] = [card.locator('button.approve'), card.locator('button.deny'), card.locator('.error')];
    await card.locator('input.typed-confirmation').fill('payment.schedule');

    // A gateway in between answers slowly, with an HTML page.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/confirmations/*/approve', async (route) => {
      await held;
      await route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
    });
    await approve.click();
    await h.waitUntil('the buttons to be disabled while the verdict is in flight', () => deny.isDisabled(), 10_000);
    expect([await approve.isDisabled(), await deny.isDisabled(), await card.locator('input.comment').isDisabled()]).toEqual([true, true, true]);
    await page.screenshot({ path: join(OUT, '3-verdict-in-flight.png'), fullPage: true });
    release();
    await error.filter({ hasText: 'HTTP 502' }).waitFor();
    expect(await error.textContent()).toBe('Not recorded: HTTP 502: <html><body><h1>502 Bad Gateway</h1></body></html>');
    expect([await approve.isDisabled(), await deny.isDisabled()]).toEqual([false, false]);
    await page.screenshot({ path: join(OUT, '4-non-json-error-shown.png'), fullPage: true });
    await page.unroute('**/confirmations/*/approve');

    // No answer at all.
    await page.route('**/confirmations/*/deny', (route) => route.abort('connectionreset'));
    await deny.click();
    await error.filter({ hasText: 'no answer from the authorizer' }).waitFor();
    await page.unroute('**/confirmations/*/deny');

    // A JSON refusal from the authorizer itself (here: the request lost its CSRF header on the way).
    await page.route('**/confirmations/*/deny', (route) => route.continue({ headers: { ...route.request().headers(), 'x-csrf-token': 'tampered' } }));
    await deny.click();
    await error.filter({ hasText: 'csrf_token_invalid' }).waitFor();
    expect(await error.textContent()).toBe('Not recorded: csrf_token_invalid: the X-CSRF-Token header is missing or wrong');
    await page.unroute('**/confirmations/*/deny');
    expect((await h.query<{ status: string }>('SELECT status FROM confirmations WHERE decision_id = $1', [d.decisionId]))[0].status).toBe('pending');

    // And then it is denied, with a comment, for real.
    await card.locator('input.comment').fill('amount does not match the invoice');
    await deny.click();
    await page.locator('#verdicts li', { hasText: 'denied' }).waitFor();
    expect(await h.outcomeOf(d.decisionId)).toEqual(['authorization_refusal', 'confirmation_denied']);
  });

  it('filters the history by tool, requester, outcome and time, and pages on past 200', async () => {
    // 240 older decided confirmations of acme (and one of another tenant), as the store keeps them.
    await h.query(
      `INSERT INTO confirmations (confirmation_id, decision_id, tenant, principal, issuer, tool, payload_sha256, status, requested_at, expires_at, decided_at, decided_by, decided_by_issuer)
       SELECT 'old-' || lpad(i::text, 3, '0'), 'old-d' || i, 'acme', CASE WHEN i % 2 = 0 THEN 'alice' ELSE 'bob' END, $1,
              CASE WHEN i % 3 = 0 THEN 'mail.send' ELSE 'ledger.transfer' END, repeat('0', 64),
              CASE WHEN i % 4 = 0 THEN 'denied' WHEN i % 4 = 1 THEN 'consumed' ELSE 'expired' END,
              timestamptz '2026-11-01T00:00:00Z' + i * interval '1 hour', timestamptz '2026-11-01T00:15:00Z' + i * interval '1 hour',
              CASE WHEN i % 4 < 2 THEN timestamptz '2026-11-01T00:05:00Z' + i * interval '1 hour' END, CASE WHEN i % 4 < 2 THEN 'dave' END, CASE WHEN i % 4 < 2 THEN $1 END
       FROM generate_series(1, 240) AS i
       UNION ALL SELECT 'other-1', 'other-d1', 'globex', 'alice', $1, 'ledger.transfer', repeat('0', 64), 'denied', '2026-11-05T00:00:00Z', '2026-11-05T00:15:00Z', now(), 'x', $1`,
      [stack.env.issuer.issuer],
    );
    const rows = page.locator('#history-rows tr');
    const ids = async () => rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.confirmationId!));

    // No filter: the two verdicts of this session first (newest), then the 240, 50 a page, "Older" until the end.
    await page.click('#history-show');
    await page.locator('#history-count', { hasText: '50 shown' }).waitFor();
    for (let shown = 100; shown < 242 + 50; shown += 50) {
      await page.click('#history-older');
      await page.locator('#history-count', { hasText: `${Math.min(shown, 242)} shown` }).waitFor();
    }
    await page.locator('#history-count', { hasText: '242 shown, no more' }).waitFor();
    expect(await page.isHidden('#history-older')).toBe(true);
    const all = await ids();
    const expected = Array.from({ length: 240 }, (_, k) => `old-${String(240 - k).padStart(3, '0')}`);
    expect([all.length, new Set(all).size, all.slice(2)]).toEqual([242, 242, expected]);
    expect(all.includes('other-1')).toBe(false);

    // Every filter at once: alice's denied ledger transfers requested in a window of days.
    await page.fill('#history-tool', 'ledger.transfer');
    await page.fill('#history-requester', 'alice');
    await page.selectOption('#history-outcome', 'denied');
    await page.fill('#history-from', '2026-11-02');
    await page.fill('#history-to', '2026-11-06');
    await page.click('#history-show');
    // i from 24 (Nov 2 00:00) to 119 (Nov 5 23:00), i % 4 = 0, i % 3 != 0: 28, 32, 40, 44, ... newest first.
    const window = Array.from({ length: 96 }, (_, k) => 24 + k).filter((i) => i % 4 === 0 && i % 3 !== 0).reverse();
    await page.locator('#history-count', { hasText: `${window.length} shown, no more` }).waitFor();
    expect(await ids()).toEqual(window.map((i) => `old-${String(i).padStart(3, '0')}`));
    expect(new Set(await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.outcome)))).toEqual(new Set(['denied']));

    // This session's verdicts with their comments, by outcome: the payment approved, the other denied.
    await page.fill('#history-tool', 'payment.schedule');
    await page.fill('#history-requester', '');
    await page.selectOption('#history-outcome', 'approved');
    await page.fill('#history-from', '');
    await page.fill('#history-to', '');
    await page.click('#history-show');
    await page.locator('#history-count', { hasText: '1 shown, no more' }).waitFor();
    expect(await rows.first().textContent()).toContain('checked with the supplier by phone · Rückruf 10:05');
    expect(await rows.first().textContent()).toContain(`alice of ${stack.env.issuer.issuer}`);
    await page.screenshot({ path: join(OUT, '5-history-filtered.png'), fullPage: true });

    // A malformed filter is refused by name.
    const cookie = (await context.cookies(consoleUrl())).map((c) => `${c.name}=${c.value}`).join('; ');
    const bad = await fetch(`${consoleUrl()}/history?outcome=maybe`, { headers: { cookie } });
    expect([bad.status, ((await bad.json()) as { message: string }).message]).toEqual([400, 'outcome must be one of approved, denied, expired']);
  });
});
